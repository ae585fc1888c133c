import { hasErrors, loadMcpConfig, loadPrdFile, loadRoutingTable, type Plan, planPrd } from "@meshflow/core";
import { EXIT, type ExitCode } from "../exitCodes.js";
import { type Output, plural, printJson } from "../output.js";
import { printProblems } from "../printProblems.js";

/** Options of `flow plan`. */
export interface PlanOptions {
  json?: boolean;
  mcpConfig?: string;
  routing?: string;
}

function printPlan(output: Output, file: string, plan: Plan, sources: string): void {
  output.out(`Plan for ${file} (${sources})`);
  for (const story of plan.stories) {
    const skipped = story.skipped ? "  — skipped: passes is true" : "";
    output.out(`\n${story.id}  ${story.title}  (priority ${story.priority})${skipped}`);
    for (const step of story.steps) {
      const who = (step.specialist ?? "(no specialist)").padEnd(18);
      const servers = step.servers.length ? step.servers.join(", ") : "(no MCP servers)";
      output.out(`  step ${String(step.step).padEnd(3)} ${who} ${servers}`);
    }
  }
  const toRun = plan.stories.filter((s) => !s.skipped);
  const steps = toRun.reduce((n, s) => n + s.steps.length, 0);
  const skipped = plan.stories.length - toRun.length;
  output.out(`\n${plural(toRun.length, "story", "stories")} to run (${plural(steps, "step")}), ${skipped} skipped`);
}

/** `flow plan <prd.json>`: the preflight routing table in run order, before any tool is called. */
export async function planCommand(file: string, options: PlanOptions, output: Output): Promise<ExitCode> {
  const routing = loadRoutingTable({ overrideFile: options.routing ?? process.env.FLOW_ROUTING });
  const loaded = await loadPrdFile(file, { routing });
  if (!loaded.prd) {
    if (options.json) printJson(output, { stories: [], problems: loaded.problems });
    else {
      printProblems(output, loaded.problems);
      output.err(`${file}: invalid PRD (${plural(loaded.problems.length, "problem")}); nothing planned`);
    }
    return EXIT.failure;
  }
  const mcpConfig = loadMcpConfig({ file: options.mcpConfig });
  const plan = planPrd(loaded.prd, { file, routing, mcpConfig });
  const failed = hasErrors(plan.problems);
  if (options.json) {
    printJson(output, {
      file,
      mcpConfig: mcpConfig.file ?? null,
      routing: routing.sources,
      stories: plan.stories.map(({ id, title, priority, skipped, steps }) => ({
        id,
        title,
        priority,
        skipped,
        steps,
      })),
      problems: plan.problems,
    });
  } else {
    const sources = `routing: ${routing.sources.join(" + ")}; MCP config: ${mcpConfig.file ?? "none found"}`;
    printPlan(output, file, plan, sources);
    if (plan.problems.length) {
      printProblems(output, plan.problems);
      const errors = plan.problems.filter((p) => p.severity === "error").length;
      output.err(`${plural(errors, "problem")}, ${plural(plan.problems.length - errors, "warning")}`);
    }
  }
  return failed ? EXIT.failure : EXIT.ok;
}
