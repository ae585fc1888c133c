/**
 * Runs the part of a command that talks to the Redis at `url`: a failure that came from Redis (a lost
 * connection, a refused command) leaves it as `redis_unavailable` naming the URL (password hidden) and
 * the cause, exit 3, never as an internal error with a stack.
 */
export async function onRedis<T>(url: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const { redactRedisUrl, redisFailure } = await import("@meshflow/queue");
    throw redisFailure(error, redactRedisUrl(url));
  }
}
