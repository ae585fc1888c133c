// Tool discovery for the `flow tools` commands, through the MCP layer's shared client pool.
import type { ErrorCode, McpServerConfig, ToolDescriptor } from "@meshflow/core";
import { serverLogDir } from "../mcpSetup.js";

/** A server whose tools could not be listed. */
export interface ServerFailure {
  server: string;
  code: ErrorCode;
  message: string;
}

/** Tools of every server that answered, and why the others did not. */
export interface Discovery {
  tools: ToolDescriptor[];
  failures: ServerFailure[];
}

/** Options of {@link discoverTools}. */
export interface DiscoverOptions {
  /** Per server, for connecting and for listing (default 20 s each). */
  timeoutMs?: number;
}

/**
 * Lists the tools of `names` (default: every configured server) in parallel with paginated `tools/list`,
 * as `<server>__<tool>` descriptors in config order. A server that fails is reported, never skipped silently.
 */
export async function discoverTools(
  servers: ReadonlyMap<string, McpServerConfig>,
  names: readonly string[] = [...servers.keys()],
  options: DiscoverOptions = {},
): Promise<Discovery> {
  const { ClientPool } = await import("@meshflow/mcp");
  const timeoutMs = options.timeoutMs ?? 20_000;
  const pool = new ClientPool(servers, {
    connectTimeoutMs: timeoutMs,
    callTimeoutMs: timeoutMs,
    stderrDir: serverLogDir(),
    clientInfo: { name: "meshflow-cli", version: "0.1.0" },
  });
  const unknown = names.filter((name) => !servers.has(name));
  try {
    const { tools, failures } = await pool.discover(names.filter((name) => servers.has(name)));
    return {
      tools,
      failures: [
        ...failures.map(({ server, code, message }) => ({ server, code, message })),
        ...unknown.map((server) => ({
          server,
          code: "server_unknown" as const,
          message: `MCP server "${server}" is not configured`,
        })),
      ],
    };
  } finally {
    await pool.close();
  }
}
