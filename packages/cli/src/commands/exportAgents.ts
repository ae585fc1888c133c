import { resolve } from "node:path";
import { MeshflowError } from "@meshflow/core";
import {
  type ExportPlan,
  loadExportSettings,
  loadExportSpecialists,
  outdatedFiles,
  parseFormat,
  parseHarness,
  planAgentExport,
  selectSpecialists,
  stripMcpEnricher,
  writeExportPlan,
} from "@meshflow/export";
import { EXIT, type ExitCode } from "../exitCodes.js";
import { type Output, plural, printJson } from "../output.js";
import { exportUniverse } from "./exportContext.js";
import { agentPaths } from "./runEnvironment.js";

/** Options of `flow export agents`. */
export interface ExportAgentsOptions {
  harness: string;
  format?: string;
  out?: string;
  specialist?: string[];
  mcpConfig?: string;
  mcp?: boolean;
  prd?: string;
  routing?: string;
  agents?: string[] | string;
  skills?: string;
  config?: string;
  cache?: string;
  check?: boolean;
  json?: boolean;
}

function printPlan(output: Output, plan: ExportPlan, check: boolean): void {
  const outdated = outdatedFiles(plan);
  const tools = new Map(plan.agents.map((a) => [a.name, a.tools.length]));
  const label = (agents: string[]) =>
    agents.length === 1
      ? `${agents[0]}, ${plural(tools.get(agents[0] ?? "") ?? 0, "tool")}`
      : plural(agents.length, "agent");
  if (check) {
    if (!outdated.length) {
      output.out(`up to date: ${plural(plan.files.length, "file")} for ${plan.harness} (${plan.format})`);
      return;
    }
    output.err(
      `flow: ${plural(outdated.length, "file")} differ from what flow export agents --harness ${plan.harness} --format ${plan.format} would write:`,
    );
    for (const file of outdated) output.err(`  ${file.status.padEnd(9)} ${file.file}  (${label(file.agents)})`);
    return;
  }
  for (const file of plan.files) output.out(`${file.status.padEnd(9)} ${file.file}  (${label(file.agents)})`);
  output.out(`note: ${plan.note}`);
}

/**
 * `flow export agents`: every specialist written out as an agent definition for a harness, with its enriched
 * tool map. `--check` writes nothing and exits 1 when the files on disk differ.
 */
export async function exportAgentsCommand(options: ExportAgentsOptions, output: Output): Promise<ExitCode> {
  const harness = parseHarness(options.harness);
  const format = parseFormat(options.format ?? "md");
  const settings = loadExportSettings(harness, options.config);
  const agents = agentPaths(options.agents);
  const { paths } = agents;
  const all = await loadExportSpecialists(paths, agents);
  if (!all.length)
    throw new MeshflowError("usage", `no specialists found in ${paths.join(", ")}: nothing to export (see --agents)`);
  const specialists = options.specialist?.length ? selectSpecialists(all, options.specialist) : all;
  const { universe, servers, failures, mcpConfigFile } = await exportUniverse(options);
  if (failures.length) {
    // A map without a server's tools would be wrong: write nothing.
    for (const failure of failures) output.err(`flow: ${failure.message}`);
    output.err("flow: nothing exported: every server the specialists use must answer");
    return EXIT.environment;
  }
  if (!mcpConfigFile && !options.json)
    output.err("flow: no MCP config (--mcp-config, FLOW_MCP_CONFIG, ./.mcp.json): the agents get no MCP tools");
  const plan = planAgentExport({
    harness,
    format,
    specialists,
    universe,
    ...(servers ? { servers } : {}),
    enrichers: [...(options.mcp === false ? [stripMcpEnricher()] : []), ...settings.enrichers],
    extras: settings.extras,
    outDir: resolve(options.out ?? "."),
    prune: !options.specialist?.length,
  });
  const outdated = outdatedFiles(plan);
  if (!options.check) writeExportPlan(plan);
  if (options.json)
    printJson(output, {
      harness,
      format,
      outDir: plan.outDir,
      check: options.check === true,
      upToDate: outdated.length === 0,
      config: settings.file ?? null,
      files: plan.files.map(({ file, status, agents }) => ({ file, status, agents })),
      agents: plan.agents.map((a) => ({ name: a.name, file: a.file, tools: a.tools.map((t) => t.name) })),
      note: plan.note,
    });
  else printPlan(output, plan, options.check === true);
  return options.check && outdated.length ? EXIT.failure : EXIT.ok;
}
