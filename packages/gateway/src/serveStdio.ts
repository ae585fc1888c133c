import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Gateway } from "./Gateway.js";
import { type ServedConnection, serveOnInitialize } from "./serveOnInitialize.js";

/**
 * Serves the gateway to one client over stdio (stdout carries protocol messages only). The session
 * is built from the client's `initialize` request; `closed` resolves when stdin ends or on `close()`.
 */
export async function serveStdio(
  gateway: Gateway,
  stdin: NodeJS.ReadableStream = process.stdin,
  stdout: NodeJS.WritableStream = process.stdout,
): Promise<ServedConnection> {
  gateway.setServeInfo({ transport: "stdio", auth: "none" });
  const transport = new StdioServerTransport(stdin as typeof process.stdin, stdout as typeof process.stdout);
  const connection = await serveOnInitialize(transport, (params) => gateway.serverFor(params));
  // The stdio transport does not close itself when its input ends.
  stdin.once("end", () => void connection.close());
  return connection;
}
