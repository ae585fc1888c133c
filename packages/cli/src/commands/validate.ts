import {
  formatJsonPath,
  hasErrors,
  loadMcpConfig,
  loadPrdFile,
  type Prd,
  type Problem,
  planPrd,
  type RoutingTable,
  stepKey,
} from "@meshflow/core";
import { EXIT, type ExitCode } from "../exitCodes.js";
import { type Output, plural, printJson } from "../output.js";
import { printProblems } from "../printProblems.js";
import { commandRouting, loadedSpecialists } from "./prdInput.js";
import { prdTargets } from "./prdTargets.js";

/** Options of `flow validate`. */
export interface ValidateOptions {
  json?: boolean;
  routing?: string;
  /** Specialist folders (`--agents`); default `./agents` over the built-in specialists. */
  agents?: string[] | string;
  /** The MCP config whose server names the PRD's `mcpTools` are checked against (default: found as `flow run` finds it). */
  mcpConfig?: string;
}

/** What validating one PRD file found. */
interface Validated {
  file: string;
  valid: boolean;
  problems: Problem[];
  stories: number;
  steps: number;
}

type Specialists = ReadonlyMap<string, { needsPlan: boolean }>;

/**
 * Steps a run would block at once: routed to a specialist with no plan of its own, with neither the
 * story's calls for the step nor a model (the story's, the PRD's, or FLOW_MODEL). Warnings: `--model`
 * given to the run supplies one.
 */
function planlessSteps(file: string, prd: Prd, routing: RoutingTable, specialists: Specialists): Problem[] {
  const problems: Problem[] = [];
  if (prd.model || prd.harness || process.env.FLOW_MODEL) return problems;
  prd.userStories.forEach((story, index) => {
    if (story.passes || story.model || story.harness) return;
    story.mavenSteps.forEach((step, i) => {
      const specialist = routing.steps.get(step);
      if (!specialist || !specialists.get(specialist)?.needsPlan) return;
      if (story.calls?.[stepKey(step)]?.length) return;
      problems.push({
        file,
        path: formatJsonPath(["userStories", index, "mavenSteps", i]),
        message: `step ${step} (${specialist}) has neither calls nor a model, so a run blocks it: add "calls": {"${stepKey(step)}": [...]}, a "model" to the story or PRD, or run with --model`,
        severity: "warning",
      });
    });
  });
  return problems;
}

async function validateOne(
  file: string,
  routing: RoutingTable,
  specialists: Specialists,
  mcpConfigFile: string | undefined,
): Promise<Validated> {
  const loaded = await loadPrdFile(file, { routing, specialists: new Set(specialists.keys()) });
  const problems = [...loaded.problems];
  const prd = loaded.prd;
  if (prd) {
    problems.push(...planlessSteps(file, prd, routing, specialists));
    // Server names are checked only against a config that exists: without one, validate judges the
    // file alone and `flow plan` says that no config was found.
    const mcpConfig = loadMcpConfig({ file: mcpConfigFile });
    if (mcpConfig.file) {
      const planned = planPrd(prd, { file, routing, mcpConfig });
      // The config's own problems and the story's server references; routing was checked on load.
      problems.push(...planned.problems.filter((p) => p.file !== file || p.path.includes(".mcpTools.")));
    }
  }
  return {
    file,
    valid: !hasErrors(problems),
    problems,
    stories: prd?.userStories.length ?? 0,
    steps: prd?.userStories.reduce((n, s) => n + s.mavenSteps.length, 0) ?? 0,
  };
}

const errorsOf = (v: Validated) =>
  v.problems.map(({ file: f, path, message, severity }) => ({ file: f, path, message, severity }));

function printText(output: Output, v: Validated): void {
  printProblems(output, v.problems);
  if (v.valid) output.out(`${v.file}: valid (${plural(v.stories, "story", "stories")}, ${plural(v.steps, "step")})`);
  else output.err(`${v.file}: invalid (${plural(v.problems.length, "problem")})`);
}

/**
 * `flow validate <prd.json | folder>`: every problem of a PRD (of each PRD of a folder), located; the
 * `mcpTools` server names too when an MCP config is found. Never writes a file.
 */
export async function validateCommand(given: string, options: ValidateOptions, output: Output): Promise<ExitCode> {
  const targets = prdTargets(given);
  const routing = commandRouting(options);
  const specialists = await loadedSpecialists(options.agents);
  const results: Validated[] = [];
  for (const file of targets.files) results.push(await validateOne(file, routing, specialists, options.mcpConfig));
  const valid = results.every((r) => r.valid);
  if (options.json) {
    const [only] = results;
    if (!targets.folder && only) printJson(output, { valid, errors: errorsOf(only) });
    else
      printJson(output, {
        valid,
        folder: given,
        prds: results.map((r) => ({ file: r.file, valid: r.valid, errors: errorsOf(r) })),
      });
  } else for (const result of results) printText(output, result);
  return valid ? EXIT.ok : EXIT.failure;
}
