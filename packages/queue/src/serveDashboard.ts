import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { MeshflowError } from "@meshflow/core";
import { allowedHostnames, checkFront } from "@meshflow/mcp/http";
import type { Queue } from "bullmq";
import { bullPrefix, CALLS_QUEUE, type QueueSettings, queueSettings, RUNS_QUEUE } from "./QueueSettings.js";
import type { RedisClient } from "./RedisClient.js";

/** The dashboard listens on loopback only. */
const DASHBOARD_HOST = "127.0.0.1";

/** Options of {@link serveDashboard}. */
export interface DashboardOptions {
  /** A connected client; the caller closes it after the dashboard. */
  redis: RedisClient;
  settings?: Partial<QueueSettings>;
  /** TCP port on 127.0.0.1 (default 3000; 0 picks a free one). */
  port?: number;
  /** Read-only board: no retry, remove or promote buttons. */
  readOnly?: boolean;
}

/** A running dashboard. */
export interface Dashboard {
  /** `http://127.0.0.1:<port>/`. */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves Bull Board for meshflow's queues (runs and calls) on the loopback interface only: the board
 * can retry and remove jobs, so it is never exposed to the network; reach it from elsewhere through
 * an SSH tunnel.
 *
 * @example
 * const board = await serveDashboard({ redis, port: 3000 });
 * console.log(board.url);
 */
export async function serveDashboard(options: DashboardOptions): Promise<Dashboard> {
  const settings = queueSettings(options.settings, options.redis.isCluster);
  const [{ Queue }, { createBullBoard }, { BullMQAdapter }, { ExpressAdapter }] = await Promise.all([
    import("bullmq"),
    optionalPackage("@bull-board/api", () => import("@bull-board/api")),
    optionalPackage("@bull-board/api", () => import("@bull-board/api/bullMQAdapter")),
    optionalPackage("@bull-board/express", () => import("@bull-board/express")),
  ]);
  const prefix = bullPrefix(settings);
  const queues: Queue[] = [RUNS_QUEUE, CALLS_QUEUE].map(
    (name) => new Queue(name, { connection: options.redis, prefix }),
  );
  for (const queue of queues) queue.on("error", () => {});
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath("/");
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: options.readOnly === true })),
    serverAdapter,
    options: { uiConfig: { boardTitle: `meshflow (${settings.prefix})` } },
  });
  const board = serverAdapter.getRouter() as RequestListener;
  const front = { allowedHostnames: allowedHostnames(DASHBOARD_HOST) };
  // Loopback alone does not keep a browser's page out: a site whose name resolves to 127.0.0.1 (DNS
  // rebinding) or a sandboxed frame (`Origin: null`) could retry and remove jobs.
  const server = createServer((req, res) => {
    const refusal = checkFront(req, front);
    if (!refusal) return board(req, res);
    res.writeHead(refusal.status, { "content-type": "text/plain; charset=utf-8" }).end(refusal.reason);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new MeshflowError(
          error.code === "EADDRINUSE" ? "usage" : "internal",
          `cannot serve the dashboard on 127.0.0.1:${options.port ?? 3000}: ${error.message}`,
          { cause: error },
        ),
      ),
    );
    server.listen(options.port ?? 3000, DASHBOARD_HOST, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all(queues.map((q) => q.close()));
    },
  };
}

/** The dashboard's packages are optional peers of @meshflow/queue: a missing one is named with its install command. */
async function optionalPackage<T>(name: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") throw cause;
    throw new MeshflowError(
      "dependency_missing",
      `flow dashboard needs ${DASHBOARD_PACKAGES.join(" and ")}, which are not installed (${name} is missing): npm install -D ${DASHBOARD_PACKAGES.map((p) => `${p}@${DASHBOARD_VERSION}`).join(" ")}`,
      { cause, details: { package: name } },
    );
  }
}

/** The optional packages `serveDashboard` loads, at the version meshflow is tested with. */
const DASHBOARD_PACKAGES = ["@bull-board/api", "@bull-board/express"] as const;
const DASHBOARD_VERSION = "9.10.1";
