import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { npmServerEntry, writeMcpConfig } from "../helpers/mcpServers.js";
import { freePort } from "../helpers/redisServer.js";
import { runFlow } from "../helpers/runFlow.js";

const SECRET = "sk-live-7f3a9c2e1b";
const TOKEN = "tok-4d8e2a6c0f";
const PATH_SECRET = "pw-91b7e3";

let dir: string;
let config: string;
let healthy: string;
let env: Record<string, string>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "meshflow-cli-diagnose-"));
  env = { FLOW_LOG_DIR: join(dir, "logs"), TEST_SECRET: SECRET, TEST_TOKEN: TOKEN, TEST_PATH_SECRET: PATH_SECRET };
  const closedPort = await freePort();
  config = writeMcpConfig(mkdtempSync(join(dir, "all-")), {
    everything: npmServerEntry("server-everything", ["stdio", "--key=${TEST_PATH_SECRET}"], {
      API_KEY: "${TEST_SECRET}",
    }),
    leaky: {
      command: process.execPath,
      args: ["-e", "console.error('auth failed for key ' + process.env.API_KEY); process.exit(1)"],
      env: { API_KEY: "${TEST_SECRET}" },
    },
    remote: {
      type: "http",
      url: `http://127.0.0.1:${closedPort}/mcp?key=\${TEST_TOKEN}`,
      headers: { Authorization: "Bearer ${TEST_TOKEN}" },
    },
  });
  healthy = writeMcpConfig(mkdtempSync(join(dir, "ok-")), {
    everything: npmServerEntry("server-everything", ["stdio"], { API_KEY: "${TEST_SECRET}" }),
    memory: npmServerEntry("server-memory", [], { MEMORY_FILE_PATH: join(dir, "memory.jsonl") }),
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("flow diagnose", () => {
  it("reports every server reachable with tool count and version, the guard and the metrics; exit 0", async () => {
    const result = await runFlow(["diagnose", "--mcp-config", healthy], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ {2}everything {2}reachable {2}\d+ tools {2}mcp-servers\/everything \d/m);
    expect(result.stdout).toMatch(/^ {2}memory {2}reachable {2}9 tools {2}memory-server /m);
    expect(result.stdout).toContain("env: API_KEY=***");
    expect(result.stdout).toContain("guard: enabled, unlocked, 0/6000 calls in the last minute");
    expect(result.stdout).toContain("metrics: 0 tool calls this session");
    expect(result.stdout + result.stderr).not.toContain(SECRET);
  });

  it("--json gives servers, guard and metrics", async () => {
    const result = await runFlow(["diagnose", "--json", "--mcp-config", healthy], { env });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.servers.map((s: { server: string; reachable: boolean }) => [s.server, s.reachable])).toEqual([
      ["everything", true],
      ["memory", true],
    ]);
    expect(report.servers[1]).toMatchObject({ toolCount: 9, serverInfo: { name: "memory-server" }, error: null });
    expect(report.servers[0].config.env).toEqual({ API_KEY: "***" });
    expect(report.guard).toMatchObject({ enabled: true, locked: false });
    expect(report.metrics).toMatchObject({ totalToolCalls: 0, warnings: [] });
  });

  it("never prints a secret: env values, headers, expanded args and URLs, stderr of failing servers; exit 3", async () => {
    for (const args of [["diagnose"], ["diagnose", "--json"]]) {
      const result = await runFlow([...args, "--mcp-config", config], { env });
      expect(result.code).toBe(3);
      const all = result.stdout + result.stderr;
      for (const secret of [SECRET, TOKEN, PATH_SECRET]) expect(all).not.toContain(secret);
      expect(all).toContain("auth failed for key ***");
      expect(all).toContain("${TEST_TOKEN}");
    }
    const report = JSON.parse((await runFlow(["diagnose", "--json", "--mcp-config", config], { env })).stdout);
    expect(report.servers.map((s: { server: string; reachable: boolean }) => [s.server, s.reachable])).toEqual([
      ["everything", true],
      ["leaky", false],
      ["remote", false],
    ]);
    expect(report.servers[2].config.headers).toEqual({ Authorization: "***" });
    expect(report.servers[1].error).toMatchObject({
      code: "server_unreachable",
      stderrTail: "auth failed for key ***",
    });
    // The server's own log is scrubbed too.
    const log = readFileSync(join(dir, "logs", "leaky.log"), "utf8");
    expect(log).toContain("auth failed for key ***");
    expect(log).not.toContain(SECRET);
  });
});
