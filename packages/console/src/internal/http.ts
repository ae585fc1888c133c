import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { type ErrorCode, MeshflowError } from "@meshflow/core";

/** Largest JSON body the console accepts (an override edit is a few hundred bytes). */
export const MAX_BODY_BYTES = 64 * 1024;

/** HTTP status of an error code in a JSON API answer. */
export function statusOf(code: ErrorCode): number {
  if (code === "run_not_found" || code === "tool_not_found" || code === "file_not_found") return 404;
  if (code === "redis_unavailable" || code === "server_unreachable") return 503;
  if (code === "guard_locked" || code === "run_locked" || code === "prd_busy") return 409;
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
 * Reads a JSON request body. State-changing requests must say `content-type: application/json`: a
 * page on another origin cannot send that without a CORS preflight the console never answers.
 */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const type = req.headers["content-type"] ?? "";
  if (!type.startsWith("application/json"))
    throw new MeshflowError("usage", `expected content-type application/json, found "${type || "none"}"`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new MeshflowError("usage", `request body above ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (!text.trim()) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new MeshflowError("json_invalid", `request body is not JSON: ${(error as Error).message}`);
  }
}

/** Name of the cookie a browser keeps the console token in (set by opening `/?token=…`). */
export const TOKEN_COOKIE = "flow_console_token";

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The token a request carries: `Authorization: Bearer …` or the console cookie. */
export function requestToken(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  if (auth?.startsWith("Bearer ")) return auth.slice(7).trim();
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === TOKEN_COOKIE) return decodeURIComponent(value.join("="));
  }
  return undefined;
}

/** True when the request carries `token` (compared in constant time). */
export function tokenMatches(req: IncomingMessage, token: string): boolean {
  const given = requestToken(req);
  return given !== undefined && same(given, token);
}

/**
 * Why a request's `Host` (or `Origin`) is not one the console answers to, or undefined: a page on
 * another site that resolves its own name to 127.0.0.1 (DNS rebinding) must not read the console.
 */
export function hostProblem(req: IncomingMessage, allowed: ReadonlySet<string>): string | undefined {
  const hostname = (value: string) => {
    try {
      return new URL(value.includes("://") ? value : `http://${value}`).hostname.toLowerCase();
    } catch {
      return value.toLowerCase();
    }
  };
  const host = req.headers.host;
  if (!host || !allowed.has(hostname(host))) return `host "${host ?? ""}" is not allowed`;
  const origin = req.headers.origin;
  if (origin && origin !== "null" && !allowed.has(hostname(origin))) return `origin "${origin}" is not allowed`;
  return undefined;
}
