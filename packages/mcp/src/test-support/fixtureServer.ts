import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

/** What the fixture server's tools did: lets a test prove a refused call never reached the server. */
export interface FixtureLog {
  /** Names of the tools whose handlers ran, in order. */
  calls: string[];
  /** The instances created so far (a reconnect creates a new one). */
  servers: McpServer[];
}

/**
 * A real SDK `McpServer` with a handful of tools for chain tests: `echo` (read-only), `add`
 * (numbers), `delete_item` (destructive), `wait` (answers only when cancelled).
 */
export function fixtureServer(log: FixtureLog = { calls: [], servers: [] }): {
  create: () => McpServer;
  log: FixtureLog;
} {
  const create = () => {
    const server = new McpServer(
      { name: "fixture", version: "1.2.3" },
      { capabilities: { tools: { listChanged: true } } },
    );
    server.registerTool(
      "echo",
      {
        description: "Echoes a message",
        inputSchema: { message: z.string() },
        annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      },
      async ({ message }) => {
        log.calls.push("echo");
        return { content: [{ type: "text", text: `Echo: ${message}` }] };
      },
    );
    server.registerTool(
      "add",
      {
        description: "Adds two numbers",
        inputSchema: { a: z.number(), b: z.number() },
        annotations: { readOnlyHint: true },
      },
      async ({ a, b }) => {
        log.calls.push("add");
        return { content: [{ type: "text", text: String(a + b) }] };
      },
    );
    server.registerTool(
      "delete_item",
      {
        description: "Deletes an item",
        inputSchema: { id: z.string(), options: z.object({ force: z.boolean() }).optional() },
        annotations: { readOnlyHint: false, destructiveHint: true },
      },
      async ({ id }) => {
        log.calls.push("delete_item");
        return { content: [{ type: "text", text: `deleted ${id}` }] };
      },
    );
    server.registerTool("wait", { description: "Answers only when cancelled", inputSchema: {} }, (_args, extra) => {
      log.calls.push("wait");
      return new Promise((resolve) =>
        extra.signal.addEventListener("abort", () => resolve({ content: [{ type: "text", text: "cancelled" }] })),
      );
    });
    log.servers.push(server);
    return server;
  };
  return { create, log };
}
