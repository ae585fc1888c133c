import {
  chooseHarness,
  hasErrors,
  loadMcpConfig,
  loadPrdFile,
  type Plan,
  planPrd,
  type RoutingTable,
} from "@meshflow/core";
import { EXIT, type ExitCode } from "../exitCodes.js";
import { type Output, plural, printJson } from "../output.js";
import { printProblems } from "../printProblems.js";
import { approvalPolicy } from "./approvalSettings.js";
import { type CallApproval, planApprovals } from "./planApprovals.js";
import { discoverPlanTools, type PlanDiscovery, type StepTools, stepId } from "./planDiscover.js";
import { commandRouting, knownSpecialists } from "./prdInput.js";
import { prdTargets } from "./prdTargets.js";
import { printFailure } from "./tools/list.js";

/** Options of `flow plan`. */
export interface PlanOptions {
  json?: boolean;
  /** Connect to the steps' MCP servers and show each step's tools. */
  discover?: boolean;
  mcpConfig?: string;
  routing?: string;
  /** Specialist folders (`--agents`); default `./agents` over the built-in specialists. */
  agents?: string[] | string;
  /** The skills folder (`--skills`); default `./skills` merged over the built-in skills. */
  skills?: string;
  /** `--harness`: every step worked by this coding agent. */
  harness?: string;
  /** `--parallel n`: show the waves of a run of n stories at once. */
  parallel?: number;
  /** `--parallel-order`: which stories run together. */
  parallelOrder?: "band" | "deps";
  /** `--approve` and `--approvals`: which scripted calls would wait for approval. */
  approve?: "none" | "destructive" | "all";
  approvals?: string;
}

/** The tools a harness is served beside the repertoire: the finishing tools. */
const FINISHING_TOOLS = ["step_pass", "step_fail", "step_block"];

function printStepTools(output: Output, tools: StepTools | undefined, harness: string | undefined): void {
  if (!tools) return;
  const indent = " ".repeat(8);
  const leftOut = tools.leftOut.length
    ? `; ${tools.leftOut.length} of the servers' ${plural(tools.offered, "tool")} left out by its skills and enrichers`
    : "";
  output.out(
    `${indent}${plural(tools.count, "tool")} in its repertoire, ${tools.schemaBytes.toLocaleString("en-US")} bytes of tool schemas${leftOut}`,
  );
  if (tools.names.length) output.out(`${indent}${tools.names.join(", ")}`);
  if (harness) output.out(`${indent}served to ${harness}: ${[...tools.names, ...FINISHING_TOOLS].join(", ")}`);
}

/** The scripted calls of a step that would wait for a person's approval. */
function printApprovals(output: Output, calls: readonly CallApproval[] | undefined): void {
  for (const c of calls ?? []) {
    if (c.needs === "no") continue;
    const why =
      c.needs === "yes"
        ? `needs approval (${c.reason})`
        : "needs approval if the tool is destructive or has the rule's capability (see it with --discover)";
    output.out(`${" ".repeat(8)}call ${c.call} ${c.tool} ${why}`);
  }
}

function printPlan(
  output: Output,
  file: string,
  plan: Plan,
  sources: string,
  discovery: PlanDiscovery | undefined,
  approvals: ReadonlyMap<string, CallApproval[]>,
): void {
  output.out(`Plan for ${file} (${sources})`);
  for (const story of plan.stories) {
    const skipped = story.skipped ? "  — skipped: passes is true" : "";
    output.out(`\n${story.id}  ${story.title}  (priority ${story.priority})${skipped}`);
    for (const step of story.steps) {
      const who = (step.specialist ?? "(no specialist)").padEnd(18);
      const servers = step.servers.length ? step.servers.join(", ") : "(no MCP servers)";
      // The purpose's name (before its colon) fits the row; the whole sentence goes under it.
      const [name, ...rest] = step.purpose.split(": ");
      output.out(
        `  step ${String(step.step).padEnd(3)} ${(name ?? "").padEnd(15)} ${who} ${servers}${step.harness ? `  harness ${step.harness}` : ""}`,
      );
      if (rest.length) output.out(`${" ".repeat(8)}${rest.join(": ")}`);
      printStepTools(output, discovery?.steps.get(stepId(story.id, step.step)), step.harness);
      printApprovals(output, approvals.get(stepId(story.id, step.step)));
    }
  }
  const toRun = plan.stories.filter((s) => !s.skipped);
  const steps = toRun.reduce((n, s) => n + s.steps.length, 0);
  const skipped = plan.stories.length - toRun.length;
  output.out(`\n${plural(toRun.length, "story", "stories")} to run (${plural(steps, "step")}), ${skipped} skipped`);
}

/** The waves of `--parallel n`, one line each; and when no two stories run together, why. */
function printWaves(output: Output, waves: readonly string[][], options: PlanOptions): void {
  const order = options.parallelOrder ?? "band";
  output.out(`\nwith --parallel ${options.parallel} (--parallel-order ${order}), in ${plural(waves.length, "wave")}:`);
  for (const [i, wave] of waves.entries()) output.out(`  wave ${i + 1}: ${wave.join(", ")}`);
  if (waves.length > 1 && waves.every((w) => w.length === 1))
    output.out(
      order === "band"
        ? "no two stories can run together: each priority band holds one story; --parallel-order deps runs any stories whose dependsOn have passed"
        : "no two stories can run together: each story dependsOn the one before it",
    );
}

/**
 * `flow plan <prd.json | folder>`: the preflight routing table in run order, before any tool is called;
 * of a folder, each PRD's in the order `flow run <folder>` takes them (`--json`: `{"folder", "prds"}`).
 */
export async function planCommand(given: string, options: PlanOptions, output: Output): Promise<ExitCode> {
  const targets = prdTargets(given);
  const routing = commandRouting(options);
  const specialists = await knownSpecialists(options.agents);
  if (!targets.folder)
    return planOne(given, options, { routing, specialists, print: (v) => printJson(output, v) }, output);
  const documents: unknown[] = [];
  let code: ExitCode = EXIT.ok;
  for (const [i, file] of targets.files.entries()) {
    if (i > 0 && !options.json) output.out("");
    const one = await planOne(file, options, { routing, specialists, print: (v) => documents.push(v) }, output);
    code = Math.max(code, one) as ExitCode;
  }
  if (options.json) printJson(output, { folder: given, prds: documents });
  return code;
}

interface PlanInputs {
  routing: RoutingTable;
  specialists: ReadonlySet<string>;
  /** Where this PRD's `--json` document goes: printed alone, or gathered for a folder's. */
  print: (value: unknown) => void;
}

async function planOne(file: string, options: PlanOptions, inputs: PlanInputs, output: Output): Promise<ExitCode> {
  const { routing, specialists, print } = inputs;
  const loaded = await loadPrdFile(file, { routing, specialists });
  if (!loaded.prd) {
    if (options.json) print({ file, stories: [], problems: loaded.problems });
    else {
      printProblems(output, loaded.problems);
      output.err(`${file}: invalid PRD (${plural(loaded.problems.length, "problem")}); nothing planned`);
    }
    return EXIT.failure;
  }
  const mcpConfig = loadMcpConfig({ file: options.mcpConfig });
  const plan = planPrd(loaded.prd, { file, routing, mcpConfig });
  plan.problems.unshift(...loaded.problems);
  if (options.harness) (await import("@meshflow/harness")).harnessAdapter(options.harness);
  const prd = loaded.prd;
  plan.stories.forEach((story) => {
    const own = prd.userStories[story.index]?.harness;
    for (const step of story.steps) {
      const harness =
        step.specialist && chooseHarness({ override: options.harness, story: own, prd: prd.harness }, step.specialist);
      if (harness) step.harness = harness;
    }
  });
  const waves =
    (options.parallel ?? 1) > 1
      ? (await import("@meshflow/runtime/host")).parallelWaves(
          plan.stories.map((s) => ({
            id: s.id,
            priority: s.priority,
            dependsOn: prd.userStories[s.index]?.dependsOn,
            skipped: s.skipped,
          })),
          options.parallel ?? 1,
          options.parallelOrder,
        )
      : undefined;
  let discovery: PlanDiscovery | undefined;
  if (options.discover) {
    discovery = await discoverPlanTools(file, plan, mcpConfig, options);
    plan.problems.push(...discovery.problems);
  }
  const failed = hasErrors(plan.problems);
  const approvals = planApprovals(prd, plan, approvalPolicy(options), discovery?.tools);
  if (options.json) {
    print({
      file,
      mcpConfig: mcpConfig.file ?? null,
      routing: routing.sources,
      stories: plan.stories.map(({ id, title, priority, skipped, steps }) => ({
        id,
        title,
        priority,
        skipped,
        steps: steps.map((step) => ({
          ...step,
          ...(discovery ? { tools: discovery.steps.get(stepId(id, step.step)) ?? null } : {}),
          ...(approvals.has(stepId(id, step.step)) ? { approvals: approvals.get(stepId(id, step.step)) } : {}),
        })),
      })),
      problems: plan.problems,
      ...(waves ? { waves } : {}),
      ...(discovery ? { failures: discovery.failures } : {}),
    });
  } else {
    const sources = `routing: ${routing.sources.join(" + ")}; MCP config: ${mcpConfig.file ?? "none found"}`;
    printPlan(output, file, plan, sources, discovery, approvals);
    if (waves) printWaves(output, waves, options);
    if (plan.problems.length) {
      printProblems(output, plan.problems);
      const errors = plan.problems.filter((p) => p.severity === "error").length;
      output.err(`${plural(errors, "problem")}, ${plural(plan.problems.length - errors, "warning")}`);
    }
    for (const failure of discovery?.failures ?? []) printFailure(output, failure);
  }
  if (discovery?.failures.length) return EXIT.environment;
  return failed ? EXIT.failure : EXIT.ok;
}
