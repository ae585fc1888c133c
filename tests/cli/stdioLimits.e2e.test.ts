import { spawn } from "node:child_process";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { flowWorkspace, parseEvents } from "../helpers/flowWorkspace.js";
import { FLOW_BIN, flowEnv, ROOT } from "../helpers/runFlow.js";

const FLOOD = join(ROOT, "tests/fixtures/servers/flood-server.mjs");

/** A workspace whose `.mcp.json` also has the flood server, and whose stories each make one call. */
function floodWorkspace(calls: Array<{ tool: string; args: Record<string, unknown> }>) {
  const ws = flowWorkspace();
  const config = JSON.parse(readFileSync(join(ws.dir, ".mcp.json"), "utf8"));
  config.mcpServers.flood = { command: process.execPath, args: [FLOOD] };
  writeFileSync(join(ws.dir, ".mcp.json"), JSON.stringify(config));
  ws.writePrd(calls.map((call) => ({ mcpTools: { step1: ["flood"] }, calls: { step1: [call] } })));
  return ws;
}

const statusOf = (stdout: string) =>
  Object.fromEntries(
    parseEvents(stdout)
      .filter((e) => e.type === "story.finished")
      .map((e) => [e.type === "story.finished" ? e.storyId : "", e.type === "story.finished" ? e.status : ""]),
  );

describe("stdio messages over the limit", () => {
  // Regression: the stdio reader threw "ReadBuffer exceeded maximum size" from the stream's data
  // handler, an uncaught exception that ended flow run (and flow resume, and flow serve).
  it("a 50 MB result is that call's result_too_large; the server answers the next call; flow run lives", async () => {
    const ws = floodWorkspace([
      { tool: "flood__big", args: { mb: 50 } },
      { tool: "flood__echo", args: { text: "after" } },
    ]);
    const run = await ws.flow(["run", "prd.json", "--json"]);
    const out = run.stdout + run.stderr;
    expect(out).not.toContain("ReadBuffer");
    expect(out).toMatch(/result_too_large/);
    expect(out).toMatch(/the answer is \d+ bytes, more than the limit of 16777216/);
    expect(run.code).toBe(1);
    expect(statusOf(run.stdout)).toEqual({ "US-001": "failed", "US-002": "passed" });
  });

  it("a line over the limit that names no call restarts the server: that call fails, the next one is answered", async () => {
    const ws = floodWorkspace([
      { tool: "flood__unmarked", args: { mb: 2 } },
      { tool: "flood__echo", args: { text: "after" } },
    ]);
    const run = await ws.flow(["run", "prd.json", "--json"], { FLOW_MAX_MESSAGE_BYTES: "1000000" });
    const out = run.stdout + run.stderr;
    expect(out).not.toContain("ReadBuffer");
    expect(out).toMatch(/result_too_large.*more than the limit of 1000000 .*that named no call/);
    expect(statusOf(run.stdout)).toEqual({ "US-001": "failed", "US-002": "passed" });
  });

  it("a server flooding its stdout with noise is logged up to a cap, then counted", async () => {
    const ws = floodWorkspace([{ tool: "flood__noise", args: { lines: 200_000 } }]);
    const logs = join(ws.dir, ".flow", "logs");
    const run = await ws.flow(["run", "prd.json", "--json"]);
    expect(run.code).toBe(0);
    const log = readFileSync(join(logs, "flood.log"), "utf8");
    expect(log.match(/transport error: not a JSON-RPC message/g)).toHaveLength(20);
    expect(log).toContain("199980 more lines that were not JSON-RPC messages, not logged");
    expect(statSync(join(logs, "flood.log")).size).toBeLessThan(20_000);
  });

  it("FLOW_MAX_MESSAGE_BYTES that is not a number of bytes is a usage error", async () => {
    const ws = floodWorkspace([{ tool: "flood__echo", args: { text: "x" } }]);
    const run = await ws.flow(["run", "prd.json"], { FLOW_MAX_MESSAGE_BYTES: "16MB" });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("must be a positive whole number of bytes");
  });
});

describe("flow serve over stdio", () => {
  // Regression: the same uncaught ReadBuffer error ended flow serve for every client.
  it("answers a request over the limit with result_too_large for its id and goes on serving", async () => {
    const ws = flowWorkspace();
    const child = spawn(process.execPath, [FLOW_BIN, "serve", "--mcp-config", join(ws.dir, ".mcp.json")], {
      cwd: ws.dir,
      env: flowEnv({ FLOW_MAX_MESSAGE_BYTES: "1000000" }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    const answers = new Map<number, Record<string, unknown>>();
    let pending = "";
    const waiters = new Map<number, () => void>();
    child.stdout.on("data", (chunk: Buffer) => {
      pending += chunk.toString("utf8");
      for (let nl = pending.indexOf("\n"); nl !== -1; nl = pending.indexOf("\n")) {
        const message = JSON.parse(pending.slice(0, nl)) as { id?: number };
        pending = pending.slice(nl + 1);
        if (typeof message.id === "number") {
          answers.set(message.id, message);
          waiters.get(message.id)?.();
        }
      }
    });
    const request = (id: number, method: string, params: Record<string, unknown>) =>
      new Promise<Record<string, unknown>>((resolve) => {
        waiters.set(id, () => resolve(answers.get(id) ?? {}));
        child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      });
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    try {
      const init = await request(1, "initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "test", version: "1" },
      });
      expect(init.result).toBeDefined();
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
      const big = await request(2, "tools/call", { name: "flow_status", arguments: { pad: "z".repeat(3_000_000) } });
      expect(big.error).toMatchObject({ message: expect.stringContaining("more than the limit of 1000000") });
      const listed = await request(3, "tools/list", {});
      expect(listed.result).toBeDefined();
      expect(child.exitCode).toBeNull();
    } finally {
      child.stdin.end();
      await exited;
    }
  });
});
