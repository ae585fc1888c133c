import type { IncomingMessage } from "node:http";

/** A request body read by {@link readRequestBody} or {@link readJsonRequest}, or why it was not. */
export type BodyRead<T> =
  | { ok: true; body: T }
  | { ok: false; status: 400 | 413 | 415; reason: "too_large" | "not_json" | "wrong_type"; message: string };

/** Options of {@link readJsonRequest}. */
export interface JsonReadOptions {
  /** Bytes read at most; a longer body is refused with 413 before it is parsed. */
  maxBytes: number;
  /**
   * Refuse a body without `content-type: application/json` (415). A page on another origin cannot
   * send that type without a CORS preflight, which meshflow's servers never answer.
   */
  requireJsonType?: boolean;
  /** What an empty (or all-space) body means; without it an empty body is not JSON (400). */
  emptyBody?: unknown;
}

/**
 * Reads a request body as UTF-8 text, at most `maxBytes`: past that, reading stops (nothing more is
 * held in memory) and the answer is a 413 refusal.
 */
export function readRequestBody(req: IncomingMessage, maxBytes: number): Promise<BodyRead<string>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      stop();
      // Paused, not destroyed: the refusal still reaches the client, then Node drops the rest.
      req.pause();
      resolve({ ok: false, status: 413, reason: "too_large", message: `request body over ${maxBytes} bytes` });
    };
    const onEnd = () => {
      stop();
      resolve({ ok: true, body: Buffer.concat(chunks).toString("utf8") });
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const stop = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
  });
}

/** Reads a request body (see {@link readRequestBody}) and parses it as JSON. */
export async function readJsonRequest(req: IncomingMessage, options: JsonReadOptions): Promise<BodyRead<unknown>> {
  if (options.requireJsonType) {
    const type = req.headers["content-type"] ?? "";
    if (!type.startsWith("application/json"))
      return {
        ok: false,
        status: 415,
        reason: "wrong_type",
        message: `expected content-type application/json, found "${type || "none"}"`,
      };
  }
  const read = await readRequestBody(req, options.maxBytes);
  if (!read.ok) return read;
  if (options.emptyBody !== undefined && !read.body.trim()) return { ok: true, body: options.emptyBody };
  try {
    return { ok: true, body: JSON.parse(read.body) as unknown };
  } catch (error) {
    return {
      ok: false,
      status: 400,
      reason: "not_json",
      message: `parse error: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}
