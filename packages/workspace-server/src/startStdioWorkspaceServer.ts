import { BoundedStdioServerTransport } from "@meshflow/mcp/stdio";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { createWorkspaceServer } from "./createWorkspaceServer.js";
import type { WorkspaceServerOptions } from "./WorkspaceConfig.js";

/** A running stdio server: `closed` resolves when the client goes away (stdin ends) or `close()` is called. */
export interface StdioWorkspaceServer {
  server: McpServer;
  closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves a workspace over stdio (stdout carries only protocol messages). When stdin ends the server closes,
 * which cancels in-flight calls and so kills any command still running. Each message read is bounded
 * (`FLOW_MAX_MESSAGE_BYTES`, default 16 MiB): a larger request is answered with a `result_too_large`
 * error for its id and the server reads on, where the SDK's own stdio reader threw and ended the process.
 */
export async function startStdioWorkspaceServer(
  options: WorkspaceServerOptions,
  stdin: NodeJS.ReadableStream = process.stdin,
  stdout: NodeJS.WritableStream = process.stdout,
): Promise<StdioWorkspaceServer> {
  const server = createWorkspaceServer(options);
  const transport = new BoundedStdioServerTransport(stdin, stdout);
  let markClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  transport.onclose = () => markClosed();
  await server.connect(transport);
  const close = async (): Promise<void> => {
    await server.close();
    markClosed();
  };
  stdin.once("end", () => void close());
  return { server, closed, close };
}
