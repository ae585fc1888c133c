import { UniversalTool } from "@meshflow/core";
import { defineSpecialist, scriptedThenModel } from "@meshflow/runtime";

// Writing code needs a plan: the story's scripted calls, or a model. Without either the step cannot be
// done, and saying so is the only honest outcome. A model's step_pass is a claim: the step passes only
// when the model really changed something through a tool that writes.
export default defineSpecialist({
  name: "development-agent",
  description:
    "Implements story steps: runs the step's scripted tool calls, then lets the step's model do the work; a model's claim passes only when one of its writing calls succeeded.",
  steps: [1, 2, 7, 9],
  needs: "calls-or-model",
  // Exported to another harness (flow export agents), it also works with that harness's own tools.
  harnessTools: [
    UniversalTool.read,
    UniversalTool.write,
    UniversalTool.edit,
    UniversalTool.bash,
    UniversalTool.grep,
    UniversalTool.glob,
    UniversalTool.todo,
  ],
  async think(ctx) {
    if (!ctx.scripted.length && !ctx.model)
      return ctx.block(
        `no plan for step ${ctx.step}: add calls for step${ctx.step} to ${ctx.story.id}, or configure a model (--model, "model" in the PRD or story, FLOW_MODEL)`,
      );
    const work = await scriptedThenModel(ctx);
    if ("stop" in work) return work.stop;
    if (!work.claim) return ctx.pass(work.scripted?.summary ?? "scripted calls succeeded", ...work.evidence);
    const writers = new Set(
      ctx.repertoire.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.qualifiedName),
    );
    const wrote = work.claim.calls.filter((c) => !c.isError && writers.has(c.tool));
    // A harness with its own tools on (`--harness-builtin-tools`) may change files beside meshflow's
    // tools: the working tree's diff it left, recorded in the evidence, is that change.
    const ownChange = work.claim.harness?.builtinTools === true && Boolean(work.claim.harness.diff?.trim());
    if (ownChange && !wrote.length)
      return ctx.pass(
        `${work.claim.summary} (changed through its own tools: see the diff in the evidence)`,
        ...work.evidence,
      );
    if (writers.size && !wrote.length)
      return ctx.fail(
        `${ctx.model?.name} claimed step ${ctx.step} done ("${work.claim.summary}") but none of its calls that change anything succeeded`,
        ...work.evidence,
      );
    const changed = [...new Set(wrote.map((c) => c.tool))].join(", ");
    return ctx.pass(`${work.claim.summary}${changed ? ` (changed through ${changed})` : ""}`, ...work.evidence);
  },
});
