import type { Stream } from "node:stream";
import type { McpServerConfig } from "@meshflow/core";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

/** A transport for a configured server, plus the process id and stderr of a stdio server. */
export interface OpenedTransport {
  transport: Transport;
  /** The child's pid while the transport holds it. */
  pid(): number | undefined;
  /** The pid the child was spawned with, kept after the transport lets go of it (to make sure it is gone). */
  spawnedPid(): number | undefined;
  stderr?: Stream;
}

/** Remembers the child's pid: the SDK forgets it as soon as closing starts, before the child is gone. */
class TrackedStdioTransport extends StdioClientTransport {
  spawnedPid: number | undefined;

  override async start(): Promise<void> {
    await super.start();
    this.spawnedPid = this.pid ?? undefined;
  }
}

/** Builds the default transport of a server: a child process over stdio, or Streamable HTTP. */
export function createTransport(config: McpServerConfig): OpenedTransport {
  if (config.transport === "http") {
    const transport = new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: config.headers },
    });
    return { transport, pid: () => undefined, spawnedPid: () => undefined };
  }
  const transport = new TrackedStdioTransport({
    command: config.command,
    args: config.args,
    // The SDK merges a safe default environment (PATH, HOME, …) under these.
    env: config.env,
    cwd: config.cwd,
    // Piped, so a server's logs go to our log sink rather than the user's terminal.
    stderr: "pipe",
  });
  const stderr = transport.stderr ?? undefined;
  return {
    transport,
    pid: () => transport.pid ?? undefined,
    spawnedPid: () => transport.spawnedPid,
    ...(stderr ? { stderr } : {}),
  };
}

/**
 * Makes sure a child process is gone. The SDK's own shutdown waits on timers that do not keep the
 * process alive, so a server that ignores stdin EOF could outlive us; `SIGKILL` settles it.
 */
export function killIfAlive(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, 0);
  } catch {
    return; // already gone
  }
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Exited in between.
  }
}
