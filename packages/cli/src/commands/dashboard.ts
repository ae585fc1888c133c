import { MeshflowError } from "@meshflow/core";
import { EXIT, type ExitCode } from "../exitCodes.js";
import type { Output } from "../output.js";
import { onRedis } from "./onRedis.js";

/** Options of `flow dashboard`. */
export interface DashboardCommandOptions {
  redis?: string;
  redisPrefix: string;
  port: number;
  readOnly?: boolean;
}

/** `flow dashboard`: Bull Board for the runs and calls queues on 127.0.0.1 until SIGINT or SIGTERM. */
export async function dashboardCommand(options: DashboardCommandOptions, output: Output): Promise<ExitCode> {
  const url = options.redis;
  if (!url) throw new MeshflowError("usage", "flow dashboard needs --redis <url> (or FLOW_REDIS_URL)");
  return onRedis(url, () => dashboard(url, options, output));
}

async function dashboard(url: string, options: DashboardCommandOptions, output: Output): Promise<ExitCode> {
  const { connectRedis, serveDashboard } = await import("@meshflow/queue");
  const redis = await connectRedis(url, { role: "worker", name: "meshflow:dashboard" });
  try {
    const board = await serveDashboard({
      redis,
      settings: { prefix: options.redisPrefix },
      port: options.port,
      readOnly: options.readOnly === true,
    });
    output.out(`dashboard: ${board.url}`);
    output.err("Ctrl-C stops it");
    await new Promise<void>((resolve) => {
      process.once("SIGINT", () => resolve());
      process.once("SIGTERM", () => resolve());
    });
    await board.close();
    return EXIT.ok;
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
}
