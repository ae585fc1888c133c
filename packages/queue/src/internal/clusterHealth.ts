import type { ErrorCode } from "@meshflow/core";
import type { RedisClusterUrl } from "../redisClusterUrl.js";
import { redisCause } from "../redisFailure.js";

/** Hash slots of a Redis Cluster. */
const SLOTS = 16_384;

/** Why a cluster cannot serve meshflow, found by asking its seed nodes. */
export interface ClusterProblem {
  code: ErrorCode;
  message: string;
}

/** The fields of `CLUSTER INFO`. */
function parseInfo(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const at = line.indexOf(":");
    if (at > 0) fields.set(line.slice(0, at), line.slice(at + 1).trim());
  }
  return fields;
}

/** What one node says of the cluster: undefined when it reports `cluster_state:ok`. */
function nodeProblem(node: string, info: Map<string, string>): ClusterProblem | undefined {
  const state = info.get("cluster_state");
  if (state === "ok") return undefined;
  const assigned = Number(info.get("cluster_slots_assigned") ?? Number.NaN);
  const known = info.get("cluster_known_nodes");
  const slots = Number.isFinite(assigned) ? `; ${SLOTS - assigned} of ${SLOTS} hash slots are unassigned` : "";
  return {
    code: "redis_unavailable",
    message:
      `cluster_state:${state ?? "unknown"} (node ${node}${known ? ` knows ${known} node(s)` : ""})${slots}: ` +
      "every slot must be served (join the nodes and assign the slots: redis-cli --cluster create …, or redis-cli --cluster fix)",
  };
}

/**
 * Asks each seed node for `CLUSTER INFO`, one plain connection at a time, before a cluster client is
 * made (ioredis waits for ever on a cluster whose slots are not all served): the first problem found —
 * a node that cannot be reached or refuses the credentials, one that is no cluster node, a cluster
 * whose state is not `ok` — or undefined when a node reports it healthy.
 */
export async function clusterProblem(url: RedisClusterUrl, timeoutMs: number): Promise<ClusterProblem | undefined> {
  const { Redis } = await import("ioredis");
  let first: ClusterProblem | undefined;
  for (const seed of url.nodes) {
    const node = `${seed.host}:${seed.port}`;
    let lastError: unknown;
    const client = new Redis({
      host: seed.host,
      port: seed.port,
      lazyConnect: true,
      connectTimeout: timeoutMs,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      enableOfflineQueue: false,
      ...(url.username ? { username: url.username } : {}),
      ...(url.password ? { password: url.password } : {}),
      ...(url.tls ? { tls: {} } : {}),
    });
    client.on("error", (error: unknown) => {
      lastError = error;
    });
    try {
      await client.connect();
      const info = parseInfo(String(await client.call("CLUSTER", "INFO")));
      const problem = nodeProblem(node, info);
      if (!problem) return undefined;
      first ??= problem;
    } catch (error) {
      const cause = redisCause(lastError ?? error);
      first ??= /cluster support disabled/i.test(cause)
        ? { code: "redis_misconfigured", message: `node ${node} is not a cluster node (${cause}); use redis://` }
        : { code: "redis_unavailable", message: `node ${node}: ${cause}` };
    } finally {
      client.disconnect();
    }
  }
  return first;
}
