import type { IncomingMessage, ServerResponse } from "node:http";
import { type ErrorCode, MeshflowError } from "@meshflow/core";
import { bearerToken, readJsonRequest } from "@meshflow/mcp/http";

/** Largest JSON body the console accepts (an override edit is a few hundred bytes). */
const MAX_BODY_BYTES = 64 * 1024;

/** HTTP status of an error code in a JSON API answer. */
function statusOf(code: ErrorCode): number {
  if (code === "run_not_found" || code === "tool_not_found" || code === "file_not_found") return 404;
  if (code === "redis_unavailable" || code === "redis_misconfigured" || code === "server_unreachable") return 503;
  if (code === "guard_locked" || code === "run_locked" || code === "prd_busy") return 409;
  if (code === "approval_stale" || code === "approval_not_pending") return 409;
  if (code === "internal") return 500;
  return 400;
}

/** Writes a JSON answer (never cached: everything the console shows changes). */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
  });
  res.end(text);
}

/** Writes `{ error: { code, message } }` with the status the code maps to. */
export function sendError(res: ServerResponse, error: MeshflowError): void {
  sendJson(res, statusOf(error.code), { error: { code: error.code, message: error.message } });
}

/**
 * Reads a JSON request body through the shared front's reader (an empty body is `{}`).
 * State-changing requests must say `content-type: application/json`: a page on another origin cannot
 * send that without a CORS preflight the console never answers.
 */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const read = await readJsonRequest(req, { maxBytes: MAX_BODY_BYTES, requireJsonType: true, emptyBody: {} });
  if (read.ok) return read.body;
  if (read.reason === "not_json") throw new MeshflowError("json_invalid", `request body is not JSON: ${read.message}`);
  throw new MeshflowError("usage", read.message);
}

/** Name of the cookie a browser keeps the console token in (set by opening `/?token=…`). */
export const TOKEN_COOKIE = "flow_console_token";

/** The token a request carries: `Authorization: Bearer …` or the console cookie. */
export function requestToken(req: IncomingMessage): string | undefined {
  const bearer = bearerToken(req);
  if (bearer !== undefined) return bearer;
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === TOKEN_COOKIE) return decodeURIComponent(value.join("="));
  }
  return undefined;
}
