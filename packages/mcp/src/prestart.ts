// `@meshflow/mcp/prestart`: start stdio servers before the rest of a command loads. This entry point
// imports no MCP SDK module, so it costs a command almost nothing to load first.
import type { McpServerConfig } from "@meshflow/core";
import { isWaiting, type PrestartedServer, prestartServer, stopPrestarted } from "./internal/prestartedServers.js";
import { stdioParameters } from "./internal/stdioServerProcess.js";

/** Servers started ahead of their connections. */
export interface PrestartedServers {
  /** The process ids of those started (a server that could not start has none). */
  pids(): number[];
  /** Stops those no connection took (ends stdin, then signals their group). Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts the stdio servers of `configs` now (HTTP servers have nothing to start). A {@link ClientPool}
 * connection of this process made later for a server with the same command, arguments, environment
 * and folder takes its process over instead of starting another, and reads its output from the first
 * byte. A server's start-up (often a few hundred milliseconds) then overlaps the loading of the rest
 * of the command. Close the result when the command ends: a server no connection took is stopped.
 */
export function prestartServers(configs: Iterable<McpServerConfig>): PrestartedServers {
  const started: PrestartedServer[] = [];
  for (const config of configs) if (config.transport === "stdio") started.push(prestartServer(stdioParameters(config)));
  let closing: Promise<void> | undefined;
  return {
    pids: () => started.flatMap((s) => (s.child.pid === undefined ? [] : [s.child.pid])),
    close: () => (closing ??= Promise.all(started.filter(isWaiting).map(stopPrestarted)).then(() => undefined)),
  };
}
