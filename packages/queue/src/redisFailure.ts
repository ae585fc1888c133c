import { isMeshflowError, MeshflowError } from "@meshflow/core";

// What went wrong with a Redis, said once for every command: the server's own error (a reply) or the
// socket's, turned into the cause a person acts on. The one place Redis errors are read by their text.

/** Names of the errors ioredis raises when it cannot reach or keep a server. */
const CONNECTION_ERRORS: ReadonlySet<string> = new Set([
  "MaxRetriesPerRequestError",
  "ClusterAllFailedError",
  "AbortError",
]);

/**
 * The cause of a Redis failure in a few words, with the server's message: `connection refused`,
 * `authentication failed`, `the cluster is down`… (the text of `error` when it is none of those).
 */
export function redisCause(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ECONNREFUSED") return `connection refused (${message})`;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `host not found (${message})`;
  if (code === "ETIMEDOUT" || /^connect ETIMEDOUT/.test(message)) return `connection timed out (${message})`;
  if (code === "ECONNRESET" || code === "EPIPE") return `connection reset by the server (${message})`;
  if (/^WRONGPASS\b/.test(message)) return `authentication failed: wrong username or password (${message})`;
  if (/^NOAUTH\b/.test(message)) return `authentication required: the URL gives no password (${message})`;
  if (/without any password configured|AUTH <password> called without/i.test(message))
    return `authentication failed: the server has no password, but the URL gives one (${message})`;
  if (/^CLUSTERDOWN\b/.test(message)) return `the cluster is down (${message})`;
  if (/^(MOVED|ASK)\b/.test(message))
    return `a cluster node answered for a single server (${message}); use redis+cluster://`;
  if (/^OOM\b/.test(message)) return `out of memory (${message})`;
  if (/^(LOADING|MASTERDOWN|READONLY)\b/.test(message)) return `the server cannot serve writes now (${message})`;
  return message;
}

/** True for an error a Redis client raised (a server reply, a lost or refused connection). */
function fromRedis(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === "ReplyError" || CONNECTION_ERRORS.has(error.name)) return true;
  const code = (error as NodeJS.ErrnoException).code;
  if (code && /^(ECONN|ENOTFOUND|ETIMEDOUT|EPIPE|EAI_)/.test(code)) return true;
  return /^(Connection is closed|Stream isn't writeable|Reached the max retries|Failed to refresh slots cache|None of startup nodes is available)/.test(
    error.message,
  );
}

/**
 * A Redis failure as meshflow reports it: `redis_unavailable` naming `where` (the URL, password already
 * hidden) and the cause. A MeshflowError passes through unchanged; another error that did not come
 * from Redis is returned unchanged too (it is not a Redis failure).
 *
 * @example
 * catch (error) { throw redisFailure(error, redactRedisUrl(url)); }
 */
export function redisFailure(error: unknown, where: string): unknown {
  if (isMeshflowError(error) || !fromRedis(error)) return error;
  return new MeshflowError("redis_unavailable", `Redis at ${where}: ${redisCause(error)}`, {
    cause: error,
    details: { url: where },
  });
}
