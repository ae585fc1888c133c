import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ClientPool } from "./ClientPool.js";
import { createToolChain } from "./createToolChain.js";
import { InlineExecutor } from "./InlineExecutor.js";
import { inMemoryServers } from "./inMemoryServers.js";

function counterServer(calls: string[]): McpServer {
  const server = new McpServer({ name: "counter", version: "1.0.0" });
  server.registerTool("add", { description: "Adds a label", inputSchema: { label: z.string() } }, async ({ label }) => {
    calls.push(label);
    return { content: [{ type: "text", text: `added ${label}` }] };
  });
  return server;
}

let pool: ClientPool | undefined;
afterEach(async () => {
  await pool?.close();
});

describe("InlineExecutor", () => {
  it("runs calls through the real middleware chain; refusals come back as results, never thrown", async () => {
    const calls: string[] = [];
    const { servers, transportFactory } = inMemoryServers({ counter: () => counterServer(calls) });
    pool = new ClientPool(servers, { transportFactory });
    await pool.discover();
    const executor = new InlineExecutor(createToolChain({ pool }));
    const call = (key: string, args: Record<string, unknown>) => ({ key, tool: "counter__add", args });

    const ok = await executor.submit(call("r/S/step1/1", { label: "a" }), { repertoire: new Set(["counter__add"]) });
    expect(ok).toMatchObject({ content: [{ type: "text", text: "added a" }] });
    const outside = await executor.submit(call("r/S/step1/2", { label: "b" }), { repertoire: new Set() });
    expect(outside).toMatchObject({ isError: true, code: "not_in_repertoire" });
    const invalid = await executor.submit(call("r/S/step1/3", { label: 3 }), {});
    expect(invalid).toMatchObject({ isError: true, code: "invalid_arguments" });
    expect(calls).toEqual(["a"]);

    await executor.close();
    const late = await executor.submit(call("r/S/step1/4", { label: "c" }), {});
    expect(late).toMatchObject({ isError: true, code: "aborted" });
    expect(calls).toEqual(["a"]);
  });

  it("turns anything a handler throws into a result with a code", async () => {
    const executor = new InlineExecutor(async () => {
      throw new Error("socket hang up");
    });
    const result = await executor.submit({ key: "k", tool: "x__y", args: {} }, {});
    expect(result).toEqual({
      isError: true,
      code: "tool_error",
      content: [{ type: "text", text: "x__y: socket hang up" }],
    });
  });
});
