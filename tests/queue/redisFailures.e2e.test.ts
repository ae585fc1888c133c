import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFlowConsole } from "../helpers/flowConsole.js";
import { type FlowWorkspace, flowWorkspace, serverEntry } from "../helpers/flowWorkspace.js";
import { type RedisCluster, startUnjoinedCluster } from "../helpers/redisCluster.js";
import { freePort, type RedisServer, startRedisServer } from "../helpers/redisServer.js";

// Every command that reaches Redis, as a user types it (the URL is added last).
const COMMANDS: ReadonlyArray<readonly string[]> = [
  ["enqueue", "prd.json"],
  ["enqueue", "prd.json", "--wait"],
  ["worker"],
  ["status", "--redis-prefix", "meshflow:"],
  ["status", "some-run"],
  ["dashboard", "--port", "39999"],
  ["run", "prd.json", "--executor", "queue"],
  ["tools", "classify"],
  ["docs", "tools"],
];

const PASSWORD = "the-right-password";

let ws: FlowWorkspace;
let locked: RedisServer;
let cluster: RedisCluster;
let nothing: number;

beforeAll(async () => {
  ws = flowWorkspace();
  // One server keeps the commands that discover tools short.
  const config = {
    mcpServers: {
      everything: { command: process.execPath, args: [serverEntry("@modelcontextprotocol/server-everything")] },
    },
  };
  writeFileSync(join(ws.dir, ".mcp.json"), JSON.stringify(config));
  ws.writePrd([
    { mcpTools: { step1: ["everything"] }, calls: { step1: [{ tool: "everything__echo", args: { message: "hi" } }] } },
  ]);
  [locked, cluster, nothing] = await Promise.all([
    startRedisServer({ args: ["--requirepass", PASSWORD] }),
    startUnjoinedCluster(),
    freePort(),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([locked?.stop(), cluster?.stop()]);
});

/** Runs each command against `url`; checks exit 3 and a message naming `shown` and the cause, without a stack. */
async function expectClearFailures(url: string, shown: string, cause: RegExp): Promise<void> {
  for (const command of COMMANDS) {
    const result = await ws.flow([...command, "--redis", url], { FLOW_REDIS_URL: undefined, FLOW_SKILLS: undefined });
    const said = `${result.stderr}${result.stdout}`;
    expect({ command: command.join(" "), code: result.code }).toEqual({ command: command.join(" "), code: 3 });
    expect(said, command.join(" ")).toContain(shown);
    expect(said, command.join(" ")).toMatch(cause);
    expect(said, command.join(" ")).not.toMatch(/\n\s+at /);
    expect(said, command.join(" ")).not.toContain(PASSWORD.slice(4));
  }
  // flow console keeps serving its other pages; its Queue page answers 503 with the same message.
  const console = await startFlowConsole(["--redis", url], { cwd: ws.dir });
  try {
    const response = await fetch(new URL("api/queue", console.url));
    expect(response.status).toBe(503);
    const { error } = (await response.json()) as { error: { message: string } };
    expect(error.message).toContain(shown);
    expect(error.message).toMatch(cause);
  } finally {
    await console.stop();
  }
}

describe("a Redis command's failure", () => {
  // Regression: `flow enqueue --wait` on a cluster whose slots were not all assigned exited 13 ("unsettled
  // top-level await") and printed nothing; a refused connection or a wrong password said only "Connection
  // is closed.".
  it("with no server there: exit 3, naming the URL and the refused connection", async () => {
    const url = `redis://127.0.0.1:${nothing}`;
    await expectClearFailures(url, url, /connection refused/);
  }, 240_000);

  it("with a wrong password: exit 3, naming the URL (password masked) and the failed authentication", async () => {
    const url = `redis://:wrong-${PASSWORD}@127.0.0.1:${locked.port}`;
    await expectClearFailures(url, `redis://:***@127.0.0.1:${locked.port}`, /authentication failed/);
  }, 240_000);

  it("on a cluster with unassigned slots: exit 3, naming the cluster and its state", async () => {
    await expectClearFailures(cluster.url, cluster.url, /cluster_state:fail.*16384 of 16384 hash slots are unassigned/);
  }, 240_000);
});
