import { MeshflowError } from "@meshflow/core";

/** One seed node of a Redis Cluster. */
export interface ClusterNode {
  host: string;
  port: number;
}

/** A parsed `redis+cluster://` URL: the seed nodes and the credentials every node shares. */
export interface RedisClusterUrl {
  nodes: ClusterNode[];
  username?: string;
  password?: string;
  /** `rediss+cluster://`: TLS to every node. */
  tls: boolean;
}

const CLUSTER_URL = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^/?#]+)\/?$/;

/** True for a `redis+cluster://` or `rediss+cluster://` URL. */
export function isRedisClusterUrl(url: string): boolean {
  return /^rediss?\+cluster:\/\//.test(url);
}

/**
 * The cluster URL of `--redis-cluster host:port,host:port` (or `FLOW_REDIS_CLUSTER`): the same nodes as
 * `redis+cluster://host:port,host:port`, which is what `--redis` accepts for a cluster.
 */
export function redisClusterUrl(nodes: string): string {
  return isRedisClusterUrl(nodes) ? nodes : `redis+cluster://${nodes.trim()}`;
}

/**
 * Parses `redis+cluster://[user:password@]host:port,host:port` (`rediss+cluster://` for TLS). Throws
 * `redis_misconfigured` naming the part that is wrong; the password never appears in a message.
 *
 * @example
 * parseRedisClusterUrl("redis+cluster://10.0.0.1:7000,10.0.0.2:7000").nodes.length; // 2
 */
export function parseRedisClusterUrl(url: string): RedisClusterUrl {
  const match = CLUSTER_URL.exec(url);
  const where = redactRedisClusterUrl(url);
  if (!match?.[1] || !match[3])
    throw new MeshflowError(
      "redis_misconfigured",
      `not a Redis Cluster URL: ${where} (expected redis+cluster://host:port,host:port)`,
    );
  const nodes = match[3].split(",").map((part) => {
    const at = part.lastIndexOf(":");
    const host = at > 0 ? part.slice(0, at).replace(/^\[|\]$/g, "") : part;
    const port = at > 0 ? Number(part.slice(at + 1)) : 6379;
    if (!host || !Number.isInteger(port) || port < 1 || port > 65535)
      throw new MeshflowError("redis_misconfigured", `${where}: "${part}" is not host:port`);
    return { host, port };
  });
  const [user, password] = (match[2] ?? "").split(":", 2).map((s) => decodeURIComponent(s));
  return {
    nodes,
    ...(user ? { username: user } : {}),
    ...(password ? { password } : {}),
    tls: match[1] === "rediss",
  };
}

/** A cluster URL with its password replaced, safe to print. */
export function redactRedisClusterUrl(url: string): string {
  return url.replace(/^(rediss?\+cluster:\/\/[^:@/]*:)[^@/]*@/, "$1***@");
}
