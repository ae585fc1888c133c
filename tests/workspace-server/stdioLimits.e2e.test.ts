import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FLOW_BIN, flowEnv } from "../helpers/runFlow.js";
import { type FixtureWorkspace, makeWorkspace } from "../helpers/workspaceFixture.js";

let ws: FixtureWorkspace;
beforeAll(() => {
  ws = makeWorkspace({ git: false });
});
afterAll(() => ws?.cleanup());

type Answer = { id?: number; result?: Record<string, unknown>; error?: { message: string; data?: unknown } };

/** `flow workspace-server` as a real child, spoken to line by line (raw JSON-RPC, so a request can be any size). */
async function workspaceServer(env: Record<string, string> = {}) {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [FLOW_BIN, "workspace-server", "--root", ws.root],
    { env: flowEnv(env), stdio: ["pipe", "pipe", "pipe"] },
  );
  // A server that died is reported by `request`; writing to its closed stdin is not a second error.
  child.stdin.on("error", () => {});
  const waiters = new Map<number, (answer: Answer) => void>();
  let pending = "";
  child.stdout.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8");
    for (let nl = pending.indexOf("\n"); nl !== -1; nl = pending.indexOf("\n")) {
      const message = JSON.parse(pending.slice(0, nl)) as Answer;
      pending = pending.slice(nl + 1);
      if (typeof message.id === "number") waiters.get(message.id)?.(message);
    }
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString("utf8");
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  let died = false;
  void exited.then(() => {
    died = true;
  });
  const request = (id: number, method: string, params: Record<string, unknown>) =>
    new Promise<Answer>((resolve, reject) => {
      waiters.set(id, resolve);
      // A server that dies instead of answering fails the test at once, with what it said.
      void exited.then((code) => reject(new Error(`flow workspace-server exited (${code}): ${stderr.slice(-2000)}`)));
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  const init = await request(1, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "test", version: "1" },
  });
  expect(init.result).toBeDefined();
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  return {
    request,
    alive: () => !died && child.exitCode === null,
    close: async () => {
      child.stdin.end();
      await exited;
    },
  };
}

describe("flow workspace-server over stdio", () => {
  // Regression: the workspace server read stdin with the MCP SDK's StdioServerTransport, whose buffer
  // throws past 10 MiB: one oversized request ended the process (and every later call of its client).
  it("answers a request over the message limit with result_too_large and serves the next call", async () => {
    const s = await workspaceServer({ FLOW_MAX_MESSAGE_BYTES: "1000000" });
    try {
      const big = await s.request(2, "tools/call", {
        name: "list_files",
        arguments: { path: ".", pad: "z".repeat(11 * 1024 * 1024) },
      });
      expect(big.error?.message).toContain("more than the limit of 1000000");
      expect(big.error?.data).toMatchObject({ meshflow: "result_too_large", limit: 1_000_000 });
      const next = await s.request(3, "tools/call", { name: "list_files", arguments: { path: "." } });
      expect(next.result?.isError).toBeUndefined();
      expect(JSON.stringify(next.result)).toContain("README.md");
      expect(s.alive()).toBe(true);
    } finally {
      await s.close();
    }
  }, 60_000);

  // Regression: V8 parses a pattern when it is constructed but compiles it when it first runs, so a
  // 1.1 MB literal passed the check before the search and failed in the search's worker as `internal`.
  it("refuses a 1.1 MB regular expression too large to compile with invalid_pattern, quoting only its start", async () => {
    const s = await workspaceServer();
    try {
      const regex = "x".repeat(1_100_000);
      const answer = await s.request(2, "tools/call", { name: "search_text", arguments: { regex } });
      const result = answer.result as { isError?: boolean; structuredContent?: Record<string, unknown> };
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({
        code: "invalid_pattern",
        patternLength: 1_100_000,
        message: expect.stringContaining(
          "(1100000 characters) is not a valid regular expression: Regular expression too large",
        ),
      });
      expect(JSON.stringify(result).length).toBeLessThan(5_000);
      expect(s.alive()).toBe(true);
    } finally {
      await s.close();
    }
  }, 60_000);
});
