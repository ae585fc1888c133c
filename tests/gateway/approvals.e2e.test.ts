import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  codeOf,
  confirmedCall,
  dataOf,
  type GatewayFixture,
  gatewayFixture,
  type ServeClient,
  serveStdioClient,
  textOf,
  until,
} from "../helpers/flowServe.js";
import { FIXTURE_AGENTS, testStories } from "../helpers/flowWorkspace.js";
import { ROOT } from "../helpers/runFlow.js";

// A run started through `flow serve` (flow_run_prd with approve) waits in the server for a decision;
// flow_approve, called by the same MCP client, lets it go on. Real server-filesystem, the real binary.

let fx: GatewayFixture;
let s: ServeClient;

beforeAll(async () => {
  fx = gatewayFixture();
  s = await serveStdioClient(["--skills", join(ROOT, "skills")], {
    cwd: fx.dir,
    clientName: "cline",
    env: { FLOW_AGENTS: FIXTURE_AGENTS, FLOW_HOME: join(fx.dir, ".flow") },
  });
});
afterAll(async () => {
  await s?.close();
  fx?.cleanup();
});

describe("flow serve: flow_approve", () => {
  it("a served run waits at a destructive call; flow_approve lists it, approves it, and the run finishes", async () => {
    const target = join(fx.files, "served.txt");
    const userStories = testStories([
      {
        mcpTools: { step1: ["filesystem"] },
        calls: { step1: [{ tool: "filesystem__write_file", args: { path: target, content: "served\n" } }] },
      },
    ]);
    writeFileSync(join(fx.dir, "approve.json"), JSON.stringify({ project: "Gw", branchName: "flow/gw", userStories }));
    // flow_run_prd is destructive: a client that does not read annotations confirms it with a token.
    const args = { prd: "approve.json", approve: "destructive" };
    const answer = await confirmedCall(s, "flow_run_prd", args);
    const started = dataOf(answer);
    expect(started, textOf(answer)).toHaveProperty("runId");
    const runId = String(started.runId);
    let listed: Record<string, unknown> = {};
    await until(async () => {
      listed = dataOf(await s.call("flow_approve", { runId }));
      return Array.isArray(listed.pending) && listed.pending.length === 1;
    });
    expect(listed, JSON.stringify(listed)).toHaveProperty("pending");
    const [pending] = listed.pending as Array<{ key: string; tool: string; argsDigest: string }>;
    expect(pending?.tool).toBe("filesystem__write_file");
    const status = dataOf(await s.call("flow_run_status", { runId }));
    expect((status.stories as Array<{ status: string }>)[0]?.status).toBe("awaiting_approval");
    expect(existsSync(target)).toBe(false);

    const stale = await s.call("flow_approve", { runId, keys: [pending?.key], argsDigest: "sha256:other" });
    expect(codeOf(stale)).toBe("approval_stale");
    const unknown = await s.call("flow_approve", { runId, keys: [`${runId}/US-001/step1/7`] });
    expect(codeOf(unknown)).toBe("usage");
    expect(textOf(unknown)).toContain(pending?.key);

    const approved = await s.call("flow_approve", {
      runId,
      keys: [pending?.key],
      argsDigest: pending?.argsDigest,
      reason: "the user said yes",
    });
    expect(textOf(approved)).toContain(`approved ${pending?.key}`);
    await until(async () => dataOf(await s.call("flow_run_status", { runId })).status === "passed");
    expect(readFileSync(target, "utf8")).toBe("served\n");
    const nothing = await s.call("flow_approve", { runId, all: true });
    expect(codeOf(nothing)).toBe("approval_not_pending");
  });
});
