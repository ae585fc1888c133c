import type { Stream } from "node:stream";
import type { McpServerConfig } from "@meshflow/core";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { DetachedStdioTransport } from "./DetachedStdioTransport.js";
import { killGroup, stdioParameters } from "./stdioServerProcess.js";

/** A transport for a configured server, plus the process id and stderr of a stdio server. */
export interface OpenedTransport {
  transport: Transport;
  /** The child's pid while the transport holds it. */
  pid(): number | undefined;
  /** The pid the child was spawned with, kept after the transport lets go of it (to make sure it is gone). */
  spawnedPid(): number | undefined;
  stderr?: Stream;
}

/**
 * Builds the default transport of a server: a child process over stdio, or Streamable HTTP (its SDK
 * modules load only when an HTTP server is used).
 */
export async function createTransport(config: McpServerConfig): Promise<OpenedTransport> {
  if (config.transport === "http") {
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const transport = new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: config.headers },
    });
    return { transport, pid: () => undefined, spawnedPid: () => undefined };
  }
  // A process group of its own: the terminal's Ctrl-C is for `flow`, not its servers. stderr is
  // piped, so a server's logs go to our log sink rather than the user's terminal.
  const transport = new DetachedStdioTransport(stdioParameters(config));
  return {
    transport,
    pid: () => transport.pid,
    spawnedPid: () => transport.spawnedPid,
    stderr: transport.stderr,
  };
}

/**
 * Makes sure a server and everything it started are gone: `SIGKILL` to its process group. The
 * transport's own shutdown waits on timers that do not keep the process alive, so a server that
 * ignores stdin EOF could outlive us.
 */
export function killIfAlive(pid: number | undefined): void {
  killGroup(pid, "SIGKILL");
}
