import { UniversalTool } from "@meshflow/core";
import { defineSpecialist, scriptedThink } from "@meshflow/runtime";

// Writing code needs a plan: the story's scripted calls, or (later) a model. Without either the
// step cannot be done, and saying so is the only honest outcome.
export default defineSpecialist({
  name: "development-agent",
  description: "Implements story steps by executing the step's scripted tool calls; blocked without a plan.",
  steps: [1, 2, 7, 9],
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
    if (!ctx.scripted.length) return ctx.block(`no plan for step ${ctx.step}: add calls or configure a model`);
    return scriptedThink(ctx);
  },
});
