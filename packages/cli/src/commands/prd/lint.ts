import { dirname, resolve } from "node:path";
import { formatProblem, loadMcpConfig, loadPrdFile, type Prd, projectRoot, stepKey } from "@meshflow/core";
import { EXIT, type ExitCode } from "../../exitCodes.js";
import { type Output, plural, printJson } from "../../output.js";
import { commandRouting, loadedSpecialists } from "../prdInput.js";
import { readProjectFacts } from "../projectFacts.js";
import { resolveSkillsDir } from "../runEnvironment.js";
import { type LintDiscoveryOptions, lintDiscovery } from "./lintDiscovery.js";
import { type LintContext, type LintWarning, lintPrd } from "./lintPrd.js";
import { stepNeeds } from "./stepNeeds.js";

/** The most acceptance criteria a story may have before `flow prd lint` says to split it. */
const DEFAULT_MAX_CRITERIA = 8;

/** Options of `flow prd lint`. */
export interface LintOptions {
  json?: boolean;
  /** `--max-criteria <n>` (default {@link DEFAULT_MAX_CRITERIA}). */
  maxCriteria?: number;
  /** `--no-discover`: start no server; the steps' capabilities are not checked. */
  discover?: boolean;
  mcpConfig?: string;
  routing?: string;
  agents?: string[] | string;
  skills?: string;
}

/** The servers the PRD's stories to run name in their steps. */
function namedServers(prd: Prd): string[] {
  const names = new Set<string>();
  for (const story of prd.userStories)
    if (!story.passes)
      for (const step of story.mavenSteps) for (const server of story.mcpTools[stepKey(step)] ?? []) names.add(server);
  return [...names];
}

/**
 * What the servers the PRD names offer, and the verify commands their steps' tools would refuse (only
 * those servers are started), with a note for each server that could not be listed and when nothing
 * was checked.
 */
async function discovered(
  prd: Prd,
  options: LintOptions,
  context: Omit<LintDiscoveryOptions, "mcpConfig" | "skillsDir">,
  notes: string[],
): Promise<Pick<LintContext, "offered" | "refusals">> {
  if (options.discover === false) {
    notes.push("the steps' servers were not started (--no-discover): their capabilities were not checked");
    return { offered: undefined, refusals: [] };
  }
  const config = loadMcpConfig({ file: options.mcpConfig });
  if (!config.file) {
    notes.push(
      "no MCP config found (--mcp-config, FLOW_MCP_CONFIG, ./.mcp.json): the steps' capabilities were not checked",
    );
    return { offered: undefined, refusals: [] };
  }
  const named = new Set(namedServers(prd));
  const servers = new Map([...config.servers].filter(([name]) => named.has(name)));
  const invalid = new Map([...config.invalid].filter(([name]) => named.has(name)));
  const found = await lintDiscovery(
    prd,
    { ...config, servers, invalid },
    { ...context, mcpConfig: config, skillsDir: resolveSkillsDir(options.skills) },
  );
  for (const failure of found.failures)
    notes.push(
      `MCP server "${failure.server}" could not list its tools (${failure.code}): the steps naming it were not checked`,
    );
  for (const name of named)
    if (!config.servers.has(name) && !config.invalid.has(name))
      notes.push(
        `MCP server "${name}" is not in ${config.file} (flow validate says where): the steps naming it were not checked`,
      );
  return { offered: found.offered, refusals: found.refusals };
}

function printText(output: Output, file: string, warnings: readonly LintWarning[], notes: readonly string[]): void {
  for (const w of warnings)
    output.out(formatProblem({ file, path: w.path, message: `${w.message} [${w.rule}]`, severity: "warning" }));
  for (const note of notes) output.err(`flow: note: ${note}`);
  output.out(warnings.length ? `${file}: ${plural(warnings.length, "warning")}` : `${file}: no warnings`);
}

/**
 * `flow prd lint <prd>`: the warnings a validator cannot give (see {@link lintPrd}). Exit 0 with none,
 * 1 with warnings (or an invalid PRD, whose problems are printed), 2 for a usage error.
 */
export async function lintCommand(file: string, options: LintOptions, output: Output): Promise<ExitCode> {
  const routing = commandRouting(options);
  const specialists = await loadedSpecialists(options.agents);
  const loaded = await loadPrdFile(file, { routing, specialists: new Set(specialists.keys()) });
  if (!loaded.prd) {
    if (options.json) printJson(output, { file, valid: false, clean: false, warnings: [], problems: loaded.problems });
    else {
      for (const problem of loaded.problems) output.err(formatProblem(problem));
      output.err(
        `${file}: invalid PRD (${plural(loaded.problems.length, "problem")}); fix it first (flow validate ${file})`,
      );
    }
    return EXIT.failure;
  }
  const notes: string[] = [];
  const prdDir = dirname(resolve(file));
  const warnings = lintPrd(loaded.prd, {
    maxCriteria: options.maxCriteria ?? DEFAULT_MAX_CRITERIA,
    test: readProjectFacts(projectRoot(prdDir)).test,
    routing,
    specialists,
    needs: stepNeeds(),
    ...(await discovered(loaded.prd, options, { routing, specialists }, notes)),
    modelFromEnv: Boolean(process.env.FLOW_MODEL),
  });
  if (options.json) printJson(output, { file, valid: true, clean: warnings.length === 0, warnings, notes });
  else printText(output, file, warnings, notes);
  return warnings.length ? EXIT.failure : EXIT.ok;
}
