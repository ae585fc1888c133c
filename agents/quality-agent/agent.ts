import { type ToolDescriptor, UniversalTool } from "@meshflow/core";
import { defineSpecialist, loadSpecialistConfig, type StepView, scriptedThenModel } from "@meshflow/runtime";
import { type QualityConfig, QualityConfigSchema } from "./config.js";
import { commandArguments, interpretResult, takesArgv } from "./runVerifyCommand.js";

const config = loadSpecialistConfig(new URL("./config.yaml", import.meta.url), QualityConfigSchema);

/** The code_execute tool to run commands with, or why there is none to choose (also asked before a run). */
function executor(ctx: StepView, settings: QualityConfig): ToolDescriptor | string {
  const tools = ctx.toolsWith("code_execute");
  const servers = ctx.story.mcpTools[`step${ctx.step}`]?.join(", ") || "none";
  if (!tools.length) return `no code_execute tool in the repertoire of step ${ctx.step} (servers: ${servers})`;
  if (settings.tool) {
    const named = tools.find((t) => t.qualifiedName === settings.tool || t.name === settings.tool);
    return (
      named ??
      `the configured tool "${settings.tool}" is not a code_execute tool of this step (have: ${tools.map((t) => t.qualifiedName).join(", ")})`
    );
  }
  const usable = tools.filter(takesArgv);
  if (usable.length === 1 && usable[0]) return usable[0];
  if (!usable.length)
    return `no code_execute tool takes argv (command + args, or argv): ${tools.map((t) => t.qualifiedName).join(", ")}`;
  return `several code_execute tools (${usable.map((t) => t.qualifiedName).join(", ")}): set agentConfig["quality-agent"].tool`;
}

export default defineSpecialist({
  name: "quality-agent",
  description:
    "Runs the story's verify commands through a code_execute tool of its repertoire; fails with the failing command's output tail.",
  steps: [5],
  // Exported to another harness (flow export agents), it also works with that harness's own tools.
  harnessTools: [UniversalTool.read, UniversalTool.grep, UniversalTool.glob, UniversalTool.bash],
  config,
  configSchema: QualityConfigSchema,
  // Before a run, the story's verify commands are checked against the allowlist this tool states.
  verifyTool: (view) => executor(view, view.config),
  async think(ctx) {
    const work = await scriptedThenModel(ctx);
    if ("stop" in work) return work.stop;
    const commands = ctx.story.verify ?? [];
    if (!commands.length)
      return ctx.block(
        `nothing to check: ${ctx.story.id} has no verify commands (add them to the story, e.g. "verify": [{ "run": ["npm", "test"] }])`,
        ...work.evidence,
      );
    const tool = executor(ctx, ctx.config);
    if (typeof tool === "string") return ctx.block(tool, ...work.evidence);
    const ran: unknown[] = [];
    const failures: string[] = [];
    for (const verify of commands) {
      const name = verify.name ?? verify.run.join(" ");
      const args = commandArguments(tool, verify, ctx.prdDir);
      if (!args) return ctx.block(`${tool.qualifiedName} does not take argv`, ...work.evidence);
      const result = await ctx.call(tool.qualifiedName, args);
      const outcome = interpretResult(result, ctx.config.tailLines);
      if (outcome.kind === "not_run")
        return ctx.block(
          `verify "${name}" could not run through ${tool.qualifiedName}: ${outcome.code}: ${outcome.message}`,
          ...work.evidence,
          { tool: tool.qualifiedName, commands: ran },
        );
      if (outcome.kind === "failed") {
        const why = outcome.timedOut ? "timed out" : `exit ${outcome.exitCode ?? "?"}`;
        failures.push(
          `verify "${name}" failed (${why}); output tail: ${outcome.tail.split("\n").slice(-3).join(" ⏎ ")}`,
        );
        ran.push({
          name,
          run: verify.run,
          status: "failed",
          exitCode: outcome.exitCode,
          timedOut: outcome.timedOut,
          tail: outcome.tail,
        });
        if (ctx.config.stopOnFailure) break;
      } else {
        // The runtime checks the claim; the completion gate then need not run this command again.
        const reusable = ctx.verified(verify, result);
        ran.push({
          name,
          run: verify.run,
          status: "passed",
          exitCode: outcome.exitCode,
          ...(reusable ? {} : { reusable }),
        });
      }
    }
    const evidence = [...work.evidence, { tool: tool.qualifiedName, commands: ran }];
    if (failures.length) return ctx.fail(failures.join("; "), ...evidence);
    const n = commands.length;
    return ctx.pass(`${n} verify command${n === 1 ? "" : "s"} passed through ${tool.qualifiedName}`, ...evidence);
  },
});
