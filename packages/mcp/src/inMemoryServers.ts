import type { McpServerConfig } from "@meshflow/core";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { TransportFactory } from "./ClientPool.js";

/** The `command` of the placeholder configs {@link inMemoryServers} makes: nothing is spawned. */
const IN_MEMORY_COMMAND = "(in-memory)";

/**
 * In-process MCP servers for a {@link ClientPool}, over `InMemoryTransport` pairs: the configs to
 * construct the pool with and the transport factory that connects them. Each (re)connect calls the
 * server's factory again, so a closed server comes back as a fresh instance, like a restarted process.
 *
 * @example
 * const { servers, transportFactory } = inMemoryServers({ demo: () => makeDemoServer() });
 * const pool = new ClientPool(servers, { transportFactory });
 */
export function inMemoryServers(factories: Readonly<Record<string, () => McpServer | Server>>): {
  servers: Map<string, McpServerConfig>;
  transportFactory: TransportFactory;
} {
  const servers = new Map<string, McpServerConfig>();
  for (const name of Object.keys(factories))
    servers.set(name, {
      name,
      transport: "stdio",
      command: IN_MEMORY_COMMAND,
      args: [],
      argsAsWritten: [],
      env: {},
      cwd: ".",
    });
  const transportFactory: TransportFactory = async (config) => {
    const factory = factories[config.name];
    if (!factory || config.transport !== "stdio" || config.command !== IN_MEMORY_COMMAND) return undefined;
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await factory().connect(serverSide);
    return clientSide;
  };
  return { servers, transportFactory };
}
