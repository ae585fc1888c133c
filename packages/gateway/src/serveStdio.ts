import { BoundedStdioServerTransport } from "@meshflow/mcp/server";
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
  // Bounded: one oversized request is that request's error, not the end of the server for every client.
  const transport = new BoundedStdioServerTransport(stdin, stdout);
  const connection = await serveOnInitialize(transport, (params) => gateway.serverFor(params));
  // The stdio transport does not close itself when its input ends.
  stdin.once("end", () => void connection.close());
  return connection;
}
