import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ClientPool, type ClientPoolOptions, type PoolEvent } from "./ClientPool.js";
import { inMemoryServers } from "./inMemoryServers.js";
import { fixtureServer } from "./test-support/fixtureServer.js";

let pool: ClientPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

function fixturePool(options: ClientPoolOptions = {}) {
  const fixture = fixtureServer();
  const { servers, transportFactory } = inMemoryServers({ fx: fixture.create });
  const events: PoolEvent[] = [];
  pool = new ClientPool(servers, { transportFactory, onEvent: (e) => events.push(e), ...options });
  return { pool, log: fixture.log, events };
}

/** A low-level server that serves `count` tools, `pageSize` per `tools/list` page. */
function pagedServer(count: number, pageSize: number, listed: { pages: number }) {
  const server = new Server({ name: "paged", version: "1" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    listed.pages++;
    const start = Number(request.params?.cursor ?? 0);
    const tools = Array.from({ length: Math.min(pageSize, count - start) }, (_, i) => ({
      name: `tool_${start + i}`,
      inputSchema: { type: "object" as const },
      annotations: { readOnlyHint: i % 2 === 0, destructiveHint: i % 2 === 1 },
      ...(start + i === 2 ? { _meta: { "meshflow/allow": ["npm"], "example.com/note": { x: 1 } } } : {}),
    }));
    const next = start + pageSize;
    return next < count ? { tools, nextCursor: String(next) } : { tools };
  });
  server.setRequestHandler(CallToolRequestSchema, (request) => ({
    content: [{ type: "text", text: `called ${request.params.name}` }],
  }));
  return server;
}

describe("ClientPool", () => {
  it("connects lazily, on first use", async () => {
    const { pool, log } = fixturePool();
    expect(pool.status()[0]?.state).toBe("idle");
    expect(log.servers).toHaveLength(0);
    await pool.listTools("fx");
    expect(pool.status()[0]).toMatchObject({ state: "connected", serverInfo: { name: "fixture", version: "1.2.3" } });
  });

  it("discovers every page of tools/list, with qualified names, annotations and _meta, and caches them", async () => {
    const listed = { pages: 0 };
    const { servers, transportFactory } = inMemoryServers({ paged: () => pagedServer(25, 10, listed) });
    pool = new ClientPool(servers, { transportFactory });
    const tools = await pool.listTools("paged");
    expect(tools.map((t) => t.qualifiedName)).toEqual(Array.from({ length: 25 }, (_, i) => `paged__tool_${i}`));
    expect(tools[1]).toEqual({
      qualifiedName: "paged__tool_1",
      server: "paged",
      name: "tool_1",
      description: "",
      inputSchema: { type: "object" },
      annotations: { readOnlyHint: false, destructiveHint: true },
    });
    // A tool's _meta (facts for clients, such as what run_command may start) is kept as the server sent it.
    expect(tools[2]?.meta).toEqual({ "meshflow/allow": ["npm"], "example.com/note": { x: 1 } });
    expect(listed.pages).toBe(3);
    await pool.listTools("paged");
    await pool.discover();
    expect(listed.pages).toBe(3);
    expect(pool.cachedTool("paged__tool_24")?.name).toBe("tool_24");
  });

  it("invalidates the cache on notifications/tools/list_changed", async () => {
    const { pool, log, events } = fixturePool();
    expect((await pool.listTools("fx")).map((t) => t.name)).not.toContain("late");
    const server = log.servers[0];
    server?.registerTool("late", { description: "added later" }, async () => ({ content: [] }));
    await vi.waitFor(() => expect(events.map((e) => e.type)).toContain("tools.changed"));
    expect(pool.cachedTool("fx__echo")).toBeUndefined();
    expect((await pool.listTools("fx")).map((t) => t.name)).toContain("late");
  });

  it("tells duplicate bare names apart by server", async () => {
    const a = fixtureServer();
    const b = fixtureServer();
    const { servers, transportFactory } = inMemoryServers({ a: a.create, b: b.create });
    pool = new ClientPool(servers, { transportFactory });
    const { tools, failures } = await pool.discover();
    expect(failures).toEqual([]);
    expect(tools.filter((t) => t.name === "echo").map((t) => t.qualifiedName)).toEqual(["a__echo", "b__echo"]);
    await pool.callTool("b", "echo", { message: "x" });
    expect([a.log.calls, b.log.calls]).toEqual([[], ["echo"]]);
  });

  it("cancels a call that outlives its timeout: call_timeout", async () => {
    const { pool } = fixturePool({ callTimeoutMs: 30_000 });
    const result = await pool.callTool("fx", "wait", {}, { timeoutMs: 50 });
    expect(result).toMatchObject({ isError: true, code: "call_timeout" });
    expect(result.content[0]?.text).toContain('server "fx", tool "wait": no answer within 50 ms');
  });

  it("ends an aborted call with aborted", async () => {
    const { pool } = fixturePool();
    const controller = new AbortController();
    const pending = pool.callTool("fx", "wait", {}, { signal: controller.signal });
    controller.abort();
    expect(await pending).toMatchObject({ isError: true, code: "aborted" });
  });

  it("fails the in-flight call with server_crashed when the server goes away, and reconnects on the next call", async () => {
    const { pool, log, events } = fixturePool();
    await pool.listTools("fx");
    const inFlight = pool.callTool("fx", "wait", {});
    await vi.waitFor(() => expect(log.calls).toContain("wait"));
    await log.servers[0]?.close();
    const crashed = await inFlight;
    expect(crashed).toMatchObject({ isError: true, code: "server_crashed" });
    expect(crashed.content[0]?.text).toContain("the server exited during the call; the next call restarts it");
    expect(pool.status()[0]).toMatchObject({ state: "crashed", crashes: 1 });
    const after = await pool.callTool("fx", "echo", { message: "again" });
    expect(after).toEqual({ content: [{ type: "text", text: "Echo: again" }] });
    expect(log.servers).toHaveLength(2);
    expect(events.map((e) => e.type)).toEqual(["server.connected", "server.crashed", "server.connected"]);
  });

  it("answers an unknown server with server_unknown, never a throw", async () => {
    const { pool } = fixturePool();
    expect(await pool.callTool("fs", "read", {})).toMatchObject({ isError: true, code: "server_unknown" });
    await expect(pool.listTools("fz")).rejects.toThrow('unknown MCP server "fz" (did you mean "fx"?); configured: fx');
  });

  it("refuses calls after close", async () => {
    const { pool } = fixturePool();
    await pool.callTool("fx", "echo", { message: "x" });
    await pool.close();
    expect(await pool.callTool("fx", "echo", { message: "x" })).toMatchObject({
      isError: true,
      code: "server_unreachable",
    });
    expect(pool.status()[0]?.state).toBe("closed");
  });

  it("getTool names the closest tools when one is missing", async () => {
    const { pool } = fixturePool();
    await expect(pool.getTool("fx__ech")).rejects.toMatchObject({
      code: "tool_not_found",
      message: 'server "fx" has no tool "ech" (did you mean "fx__echo"?)',
    });
  });
});
