import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, redisCommand } from "./redisServer.js";

/** A real 3-master Redis Cluster of `redis-server` child processes on loopback ports, owned by a test. */
export interface RedisCluster {
  /** `redis+cluster://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3`: what `--redis` takes. */
  url: string;
  /** `127.0.0.1:P1,…`: what `--redis-cluster` takes. */
  nodes: string;
  ports: number[];
  /** Stops every node (SIGTERM, then SIGKILL after 2 s) and removes their folder. */
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once("exit", () => resolve()));
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not there yet
    }
    if (Date.now() > deadline) throw new Error(`Redis Cluster: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts three `redis-server --cluster-enabled yes` processes (not joined) and waits until each answers PING. */
async function startClusterNodes(): Promise<{ dir: string; ports: number[]; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-cluster-"));
  const ports = [await freePort(), await freePort(), await freePort()];
  const children: ChildProcess[] = [];
  const stop = async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const killer = setTimeout(() => {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }, 2_000);
    await Promise.all(children.map(exited));
    clearTimeout(killer);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports) {
      const child = spawn(
        "redis-server",
        [
          "--port",
          String(port),
          "--bind",
          "127.0.0.1",
          "--save",
          "",
          "--appendonly",
          "no",
          "--maxmemory-policy",
          "noeviction",
          "--dir",
          dir,
          "--cluster-enabled",
          "yes",
          "--cluster-config-file",
          join(dir, `nodes-${port}.conf`),
        ],
        { stdio: "ignore" },
      );
      children.push(child);
    }
    for (const port of ports)
      await waitFor(`node ${port} to answer PING`, async () => (await redisCommand(port, "PING", 250)) === "+PONG");
  } catch (error) {
    await stop();
    throw error;
  }
  return { dir, ports, stop };
}

const clusterOf = (ports: number[], stop: () => Promise<void>): RedisCluster => {
  const nodes = ports.map((p) => `127.0.0.1:${p}`).join(",");
  return { url: `redis+cluster://${nodes}`, nodes, ports, stop };
};

/**
 * Three `redis-server --cluster-enabled yes` processes that were never joined: each reports
 * `cluster_state:fail` with no hash slot assigned (a cluster a user forgot to create).
 */
export async function startUnjoinedCluster(): Promise<RedisCluster> {
  const { ports, stop } = await startClusterNodes();
  return clusterOf(ports, stop);
}

/**
 * Starts three `redis-server --cluster-enabled yes` processes on free loopback ports (no persistence,
 * noeviction), joins them with `redis-cli --cluster create … --cluster-replicas 0 --cluster-yes` and
 * waits until every node reports `cluster_state:ok`.
 */
export async function startRedisCluster(): Promise<RedisCluster> {
  const { ports, stop } = await startClusterNodes();
  try {
    const create = spawnSync(
      "redis-cli",
      ["--cluster", "create", ...ports.map((p) => `127.0.0.1:${p}`), "--cluster-replicas", "0", "--cluster-yes"],
      { encoding: "utf8", timeout: 30_000 },
    );
    if (create.status !== 0)
      throw new Error(`redis-cli --cluster create failed (${create.status}): ${create.stderr}${create.stdout}`);
    for (const port of ports)
      await waitFor(`node ${port} to report cluster_state:ok`, async () =>
        (await redisCommand(port, "CLUSTER INFO", 500, 2)).includes("cluster_state:ok"),
      );
  } catch (error) {
    await stop();
    throw error;
  }
  return clusterOf(ports, stop);
}
