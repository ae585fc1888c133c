import { MeshflowError } from "@meshflow/core";
import { type CoverageReport, computeCoverage, coverageHeadline } from "@meshflow/resolver";
import { EXIT, type ExitCode } from "../../exitCodes.js";
import { type Output, printJson } from "../../output.js";
import { type CoverageScopeOptions, coverageScope } from "../coverageContext.js";
import { loadToolsContext, printFailures, type ToolsContext, type ToolsOptions } from "./context.js";

/** Options of `flow tools coverage`. */
export interface CoverageCommandOptions extends ToolsOptions, CoverageScopeOptions {
  min?: string;
}

function parseMin(min: string | undefined): number | undefined {
  if (min === undefined) return undefined;
  const value = Number(min);
  if (!Number.isFinite(value) || value < 0 || value > 100)
    throw new MeshflowError("usage", `--min expects a percentage from 0 to 100, found "${min}"`);
  return value;
}

function printReport(output: Output, report: CoverageReport): void {
  output.out(`${coverageHeadline(report)}\n`);
  const rows = report.specialists.map((s) => [
    s.name,
    s.servers.join(", ") || "-",
    s.skills.join(", ") || "(all tools)",
    String(s.universe),
    String(s.available),
    String(s.mapped),
    String(s.gap),
  ]);
  const header = ["specialist", "servers", "skills", "on servers", "available", "mapped", "gap"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)) + 2);
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("")
      .trimEnd();
  output.out(line(header));
  for (const row of rows) output.out(line(row));
  output.out("\nservers:");
  for (const s of report.servers) output.out(`  ${s.server}: ${s.reachable} of ${s.tools} reachable`);
  if (report.unreachable.length) {
    output.out(`\nunreachable (${report.unreachable.length}):`);
    for (const u of report.unreachable) output.out(`  ${u.qualifiedName}  ${u.reason}`);
  }
  if (report.deadAliases.length) {
    output.out(`\nalias entries naming no discovered tool (${report.deadAliases.length}):`);
    for (const a of report.deadAliases) output.out(`  ${a.from} → ${a.to}  (${a.file})`);
  }
  const unresolved = report.specialists.flatMap((s) => s.unresolved.map((u) => ({ specialist: s.name, ...u })));
  if (unresolved.length) {
    output.out(`\nnames that do not resolve in their specialist's repertoire (${unresolved.length}):`);
    for (const u of unresolved) output.out(`  ${u.specialist}: ${u.name} (${u.code})`);
  }
}

/** The coverage of the discovered tools by the specialists in scope (`flow tools coverage`, `flow console`). */
export async function coverageOf(options: CoverageScopeOptions, ctx: ToolsContext): Promise<CoverageReport> {
  const { specialists } = await coverageScope(options, ctx.skills, [...ctx.mcpConfig.servers.keys()]);
  return computeCoverage({ tools: ctx.tools, specialists, skills: ctx.skills, index: ctx.index, aliases: ctx.aliases });
}

/** `flow tools coverage`: which tools each specialist can reach, and which none can. */
export async function coverageCommand(options: CoverageCommandOptions, output: Output): Promise<ExitCode> {
  const min = parseMin(options.min);
  const ctx = await loadToolsContext(options);
  const report = await coverageOf(options, ctx);
  const below = min !== undefined && report.percent < min;
  if (options.json) printJson(output, { ...report, min: min ?? null, failures: ctx.failures });
  else {
    printReport(output, report);
    printFailures(output, ctx.failures);
    if (below) output.err(`flow: coverage ${report.percent.toFixed(1)}% is below --min ${min}%`);
  }
  if (ctx.failures.length) return EXIT.environment;
  return below ? EXIT.failure : EXIT.ok;
}
