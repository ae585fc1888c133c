import { defineSpecialist, scriptedThink } from "@meshflow/runtime";

// With a model, lets the model work the step and takes its claim; otherwise runs the story's scripted
// calls. When the step passes and the story's agentConfig names a learning
// ({"development-agent": {"learn": "…"}}), notes it with ctx.log.learn.
export default defineSpecialist({
  name: "development-agent",
  description: "Runs the story's scripted calls (or its model) and notes the story's learning (PRD workflow fixture).",
  steps: [1, 2, 7, 9],
  async think(ctx) {
    let outcome = ctx.model ? undefined : await scriptedThink(ctx);
    if (ctx.model) {
      const claim = await ctx.model.work();
      outcome = claim.status === "passed" ? ctx.pass(claim.summary) : ctx.fail(claim.summary);
    }
    if (!outcome) return ctx.block("nothing to do");
    const learn = ctx.config.learn;
    if (outcome.status === "passed" && typeof learn === "string") ctx.log.learn(learn);
    return outcome;
  },
});
