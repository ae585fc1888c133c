import type { Stream } from "node:stream";
import type { McpServerConfig } from "@meshflow/core";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

/** A transport for a configured server, plus the process id and stderr of a stdio server. */
export interface OpenedTransport {
  transport: Transport;
  pid(): number | undefined;
  stderr?: Stream;
}

/** Builds the default transport of a server: a child process over stdio, or Streamable HTTP. */
export function createTransport(config: McpServerConfig): OpenedTransport {
  if (config.transport === "http") {
    const transport = new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: config.headers },
    });
    return { transport, pid: () => undefined };
  }
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args,
    // The SDK merges a safe default environment (PATH, HOME, …) under these.
    env: config.env,
    cwd: config.cwd,
    // Piped, so a server's logs go to our log sink rather than the user's terminal.
    stderr: "pipe",
  });
  const stderr = transport.stderr ?? undefined;
  return { transport, pid: () => transport.pid ?? undefined, ...(stderr ? { stderr } : {}) };
}
