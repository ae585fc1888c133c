import { type ErrorCode, type McpServerConfig, MeshflowError, redactServerConfig } from "@meshflow/core";
import type { ClientPool, ConnectionState } from "./ClientPool.js";
import type { Guard, GuardState } from "./Guard.js";
import { scrubValue, secretValues } from "./internal/secrets.js";
import type { MetricsCollector, MetricsSummary } from "./MetricsCollector.js";

/** One server in a {@link Diagnosis}. */
export interface ServerDiagnosis {
  server: string;
  /** The config with env and header values masked and args/URL as written. */
  config: McpServerConfig;
  reachable: boolean;
  state: ConnectionState;
  toolCount: number | null;
  /** `serverInfo` from the `initialize` handshake. */
  serverInfo: { name: string; version: string } | null;
  pid: number | null;
  crashes: number;
  error: { code: ErrorCode; message: string; stderrTail: string } | null;
}

/** A health report of the MCP layer that never contains a secret of the MCP config. */
export interface Diagnosis {
  servers: ServerDiagnosis[];
  guard: GuardState | null;
  metrics: MetricsSummary | null;
}

/** What {@link diagnose} inspects. */
export interface DiagnoseOptions {
  pool: ClientPool;
  guard?: Guard;
  metrics?: MetricsCollector;
  /** Servers to check (default: all of the pool's). */
  servers?: readonly string[];
  /** Per-tool metrics too. */
  verbose?: boolean;
}

/**
 * Reaches every server (discovering its tools), then reports reachability, tool counts and
 * versions, the guard's state and the metrics summary. Env values and headers are masked, and
 * every string (error messages, stderr tails) is scrubbed of the config's secret values.
 */
export async function diagnose(options: DiagnoseOptions): Promise<Diagnosis> {
  const { pool } = options;
  const names = options.servers ?? pool.servers;
  const configs = new Map<string, McpServerConfig>();
  for (const name of names) {
    const config = pool.config(name);
    if (!config)
      throw new MeshflowError("server_unknown", `unknown MCP server "${name}"`, { details: { server: name } });
    configs.set(name, config);
  }
  const { tools, failures } = await pool.discover(names);
  // Counted from this discovery: a list_changed right after it may already have emptied the cache.
  const toolCounts = new Map<string, number>();
  for (const tool of tools) toolCounts.set(tool.server, (toolCounts.get(tool.server) ?? 0) + 1);
  const failed = new Map(failures.map((f) => [f.server, f]));
  const secrets: string[] = [];
  const statuses = new Map(pool.status(names).map((status) => [status.server, status]));
  const servers: ServerDiagnosis[] = [];
  for (const [name, config] of configs) {
    secrets.push(...secretValues(config));
    const status = statuses.get(name);
    const failure = failed.get(name);
    servers.push({
      server: name,
      config: redactServerConfig(config),
      reachable: !failure && status?.state === "connected",
      state: status?.state ?? "idle",
      toolCount: failure ? null : (toolCounts.get(name) ?? 0),
      serverInfo: status?.serverInfo ?? null,
      pid: status?.pid ?? null,
      crashes: status?.crashes ?? 0,
      error: failure ? { code: failure.code, message: failure.message, stderrTail: failure.stderrTail } : null,
    });
  }
  const report: Diagnosis = {
    servers,
    guard: options.guard?.state() ?? null,
    metrics: options.metrics?.summary(options.verbose ?? false) ?? null,
  };
  return scrubValue(
    report,
    [...new Set(secrets)].sort((a, b) => b.length - a.length),
  );
}
