import type { RedisClient } from "../RedisClient.js";

/** Error codes and messages of a lost or refused Redis connection (not of a command that Redis answered). */
const CONNECTION_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENOTFOUND"]);
const CONNECTION_MESSAGES =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENOTFOUND|Connection is closed|connect ETIMEDOUT/;

/** True for an error that says Redis cannot be reached (as opposed to an error Redis answered with). */
export function isConnectionError(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  if (typeof e?.code === "string" && CONNECTION_CODES.has(e.code)) return true;
  return typeof e?.message === "string" && CONNECTION_MESSAGES.test(e.message);
}

/** A change of the worker's link to Redis. */
export type ConnectionChange = { state: "down"; message: string } | { state: "up"; downMs: number };

/**
 * Turns the stream of connection errors of a worker's Redis clients (its own and BullMQ's duplicates,
 * each retrying on its own) into one report per state change: `down` with the first error, `up` once
 * the client is ready again. While Redis is away, connection errors are swallowed here.
 */
export class ConnectionWatch {
  readonly #report: (change: ConnectionChange) => void;
  readonly #now: () => number;
  #downSince: number | undefined;

  constructor(redis: RedisClient, report: (change: ConnectionChange) => void, now: () => number = Date.now) {
    this.#report = report;
    this.#now = now;
    redis.on("error", (error: unknown) => this.error(error));
    redis.on("ready", () => this.#up());
  }

  /** Whether Redis is unreachable now. */
  get down(): boolean {
    return this.#downSince !== undefined;
  }

  /** Takes an error of any of the worker's clients: true when it was a connection error (reported or swallowed). */
  error(error: unknown): boolean {
    if (!isConnectionError(error)) return false;
    if (this.#downSince === undefined) {
      this.#downSince = this.#now();
      this.#report({ state: "down", message: error instanceof Error ? error.message : String(error) });
    }
    return true;
  }

  #up(): void {
    if (this.#downSince === undefined) return;
    const downMs = this.#now() - this.#downSince;
    this.#downSince = undefined;
    this.#report({ state: "up", downMs });
  }
}
