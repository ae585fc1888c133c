import type { Problem } from "@meshflow/core";
import type { Diagnosis, ServerDiagnosis } from "@meshflow/mcp";
import { EXIT, type ExitCode } from "../exitCodes.js";
import { createPool, requireMcpConfig, selectServers, withPool } from "../mcpSetup.js";
import { type Output, plural, printJson } from "../output.js";

/** Options of `flow diagnose`. */
export interface DiagnoseCommandOptions {
  server?: string[];
  json?: boolean;
  mcpConfig?: string;
}

function endpoint(server: ServerDiagnosis): string {
  const config = server.config;
  if (config.transport === "http") {
    const headers = Object.keys(config.headers);
    return `http ${config.url}${headers.length ? `  headers: ${headers.map((h) => `${h}: ***`).join(", ")}` : ""}`;
  }
  const env = Object.keys(config.env);
  return `stdio ${[config.command, ...config.args].join(" ")}${env.length ? `  env: ${env.map((k) => `${k}=***`).join(" ")}` : ""}`;
}

function printServer(output: Output, server: ServerDiagnosis): void {
  const status = server.reachable ? "reachable" : "UNREACHABLE";
  const facts = server.reachable
    ? [
        plural(server.toolCount ?? 0, "tool"),
        server.serverInfo ? `${server.serverInfo.name} ${server.serverInfo.version}` : "",
      ]
    : [server.error?.code ?? server.state];
  output.out(`  ${server.server}  ${status}  ${facts.filter(Boolean).join("  ")}`);
  output.out(`      ${endpoint(server)}`);
  if (server.error) for (const line of server.error.message.split("\n")) output.out(`      ${line}`);
}

function printDiagnosis(output: Output, file: string, report: Diagnosis, invalid: Map<string, Problem[]>): void {
  output.out(`MCP config: ${file}`);
  output.out(`\nservers (${report.servers.length + invalid.size}):`);
  for (const server of report.servers) printServer(output, server);
  for (const [server, problems] of invalid) {
    output.out(`  ${server}  MISCONFIGURED`);
    for (const p of problems) output.out(`      ${p.path}: ${p.message}`);
  }
  const guard = report.guard;
  if (guard) {
    const lock = guard.locked ? `LOCKED (${guard.lockReason ?? "no reason given"})` : "unlocked";
    output.out(
      `\nguard: ${guard.enabled ? "enabled" : "rate limit off"}, ${lock}, ${guard.callsInLastMinute}/${guard.callsPerMinuteThreshold} calls in the last minute`,
    );
  }
  const metrics = report.metrics;
  if (metrics) {
    output.out(
      `metrics: ${plural(metrics.totalToolCalls, "tool call")} this session, error rate ${Math.round(metrics.overallErrorRate * 100)}%, uptime ${metrics.sessionUptimeMinutes} min`,
    );
    for (const warning of metrics.warnings) output.out(`  warning: ${warning}`);
  }
}

/**
 * `flow diagnose`: every configured server (reachable, tool count, version), the guard's state and
 * the metrics summary. Env values and headers are never printed. Exit 3 when a server is
 * unreachable, 1 when one is misconfigured.
 */
export async function diagnoseCommand(options: DiagnoseCommandOptions, output: Output): Promise<ExitCode> {
  const config = requireMcpConfig(options.mcpConfig);
  const names = selectServers(config, options.server);
  const usable = names.filter((s) => config.servers.has(s));
  const invalid = new Map(names.flatMap((s) => (config.invalid.has(s) ? [[s, config.invalid.get(s) ?? []]] : [])));
  const { diagnose, Guard, MetricsCollector } = await import("@meshflow/mcp");
  const pool = await createPool(config);
  const report = await withPool(pool, (p) =>
    diagnose({ pool: p, servers: usable, guard: new Guard(), metrics: new MetricsCollector(), verbose: true }),
  );
  if (options.json)
    printJson(output, {
      mcpConfig: config.file,
      ...report,
      invalidServers: [...invalid].map(([server, problems]) => ({ server, problems })),
    });
  else printDiagnosis(output, config.file, report, invalid);
  if (report.servers.some((s) => !s.reachable)) return EXIT.environment;
  return invalid.size ? EXIT.failure : EXIT.ok;
}
