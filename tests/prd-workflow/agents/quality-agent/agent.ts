import { existsSync } from "node:fs";
import { defineSpecialist } from "@meshflow/runtime";

// Logs what ctx.memory holds (so a test can see it in the run's log), then passes unless its
// config names a file that must exist ({"quality-agent": {"requires": "/abs/path"}}) and it does not.
export default defineSpecialist({
  name: "quality-agent",
  description: "Reports ctx.memory and checks a required file (PRD workflow fixture).",
  steps: [5],
  async think(ctx) {
    ctx.log.info("memory", {
      steps: ctx.memory.map((m) => `${m.step}:${m.outcome.status}`),
      stories: ctx.memory.stories.map((s) => `${s.prd}#${s.storyId}:${s.status}`),
      learnings: ctx.memory.learnings.map((l) => l.text),
    });
    const requires = ctx.config.requires;
    if (typeof requires === "string" && !existsSync(requires)) return ctx.fail(`${requires} is missing`);
    return ctx.pass(`checked after ${ctx.memory.length} earlier step(s)`);
  },
});
