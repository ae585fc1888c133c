import type { McpServerConfig } from "@meshflow/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { ClientPool } from "../ClientPool.js";
import { inMemoryServers } from "../inMemoryServers.js";
import { confirmationTokenTool } from "../server/metaTools.js";
import { CORE_TOOLSET } from "../server/ToolsetRegistry.js";
import { ToolsetServer, type ToolsetServerEvent, type ToolsetServerOptions } from "../server/ToolsetServer.js";

/** A tool name long enough that `<server>__<tool>` passes 64 characters. */
export const LONG_TOOL = "summarize_every_document_in_the_knowledge_base_grouped_by_topic_and_author";

/** Server `alpha`: echo, a destructive delete, a long-named tool; `addTool` adds one and sends list_changed. */
function alphaServer(calls: string[], servers: McpServer[]) {
  const server = new McpServer({ name: "alpha", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
  server.registerTool(
    "echo",
    {
      description: "Echoes a message. Second sentence.",
      inputSchema: { message: z.string() },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ message }) => {
      calls.push("echo");
      return { content: [{ type: "text", text: `Echo: ${message}` }] };
    },
  );
  server.registerTool(
    "delete_item",
    {
      description: "Deletes an item for good.",
      inputSchema: { id: z.string() },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    },
    async ({ id }) => {
      calls.push(`delete_item ${id}`);
      return { content: [{ type: "text", text: `deleted ${id}` }] };
    },
  );
  server.registerTool(LONG_TOOL, { description: "Summarizes documents.", inputSchema: {} }, async () => {
    calls.push(LONG_TOOL);
    return { content: [{ type: "text", text: "summary" }] };
  });
  servers.push(server);
  return server;
}

/** A server named `name` with `count` read-only tools `t0…`. */
function bulkServer(name: string, count: number) {
  const server = new McpServer({ name, version: "1.0.0" });
  for (let i = 0; i < count; i++)
    server.registerTool(
      `t${i}`,
      { description: `Tool ${i} of ${name}.`, inputSchema: {}, annotations: { readOnlyHint: true } },
      async () => ({ content: [{ type: "text", text: `${name} t${i}` }] }),
    );
  return server;
}

/** What a test connected: the hub, the pool, the downstream log, a client and its list_changed count. */
export interface ToolsetFixture {
  hub: ToolsetServer;
  pool: ClientPool;
  /** Calls that reached server `alpha`. */
  calls: string[];
  /** The `alpha` server instances (the last one is live). */
  alpha: McpServer[];
  events: ToolsetServerEvent[];
  connect(
    clientName: string,
    capabilities?: Record<string, unknown>,
  ): Promise<{ client: Client; listChanged: () => number; close: () => Promise<void> }>;
  close(): Promise<void>;
}

/**
 * A toolset server over in-memory SDK servers: `alpha` (3 tools), `beta` (30), `gamma` (10), and
 * `broken` (cannot start). With the 4 discovery tools and `get_confirmation_token` in `core`,
 * the default selection is core + discovery + alpha + beta = 38 tools; gamma does not fit in 40.
 */
export async function toolsetFixture(options: Partial<ToolsetServerOptions> = {}): Promise<ToolsetFixture> {
  const calls: string[] = [];
  const alpha: McpServer[] = [];
  const { servers, transportFactory } = inMemoryServers({
    alpha: () => alphaServer(calls, alpha),
    beta: () => bulkServer("beta", 30),
    gamma: () => bulkServer("gamma", 10),
  });
  const all = new Map<string, McpServerConfig>(servers);
  all.set("broken", {
    name: "broken",
    transport: "stdio",
    command: process.execPath,
    args: ["-e", "process.exit(3)"],
    argsAsWritten: ["-e", "process.exit(3)"],
    env: {},
    cwd: ".",
  });
  let hub: ToolsetServer | undefined;
  const pool = new ClientPool(all, {
    transportFactory,
    connectTimeoutMs: 10_000,
    onEvent: (event) => hub?.handlePoolEvent(event),
  });
  const events: ToolsetServerEvent[] = [];
  hub = new ToolsetServer({
    pool,
    serverInfo: { name: "test-hub", version: "0.0.1" },
    onEvent: (e) => events.push(e),
    ...options,
  });
  const created = hub;
  created.registry.set({
    name: CORE_TOOLSET,
    description: "own tools",
    kind: "own",
    alwaysLoaded: true,
    tools: [confirmationTokenTool(created.registry, created.confirmation)],
  });
  await created.discoverServers();
  const clients: Client[] = [];
  return {
    hub: created,
    pool,
    calls,
    alpha,
    events,
    async connect(clientName, capabilities = {}) {
      const { server } = created.openSession({ clientInfo: { name: clientName, version: "1.0" }, capabilities });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      const client = new Client({ name: clientName, version: "1.0" });
      let changed = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        changed++;
      });
      await client.connect(clientSide);
      clients.push(client);
      return { client, listChanged: () => changed, close: () => client.close() };
    },
    async close() {
      await Promise.allSettled(clients.map((c) => c.close()));
      await created.close();
      await pool.close();
    },
  };
}
