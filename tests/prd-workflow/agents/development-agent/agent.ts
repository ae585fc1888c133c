import { defineSpecialist, scriptedThink } from "@meshflow/runtime";

// Runs the story's scripted calls; when it passes and the story's agentConfig names a learning
// ({"development-agent": {"learn": "…"}}), notes it with ctx.log.learn.
export default defineSpecialist({
  name: "development-agent",
  description: "Runs the story's scripted calls and notes the story's learning (PRD workflow fixture).",
  steps: [1, 2, 7, 9],
  async think(ctx) {
    const outcome = await scriptedThink(ctx);
    const learn = ctx.config.learn;
    if (outcome.status === "passed" && typeof learn === "string") ctx.log.learn(learn);
    return outcome;
  },
});
