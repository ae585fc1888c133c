import { UniversalTool } from "@meshflow/core";
import { defineSpecialist, loadSpecialistConfig, scriptedThenModel } from "@meshflow/runtime";
import { ToolProblem } from "../shared/toolResults.js";
import { WorkspaceFiles } from "../shared/WorkspaceFiles.js";
import { RefactorConfigSchema } from "./config.js";
import { measureWorkspace } from "./measureWorkspace.js";

const config = loadSpecialistConfig(new URL("./config.yaml", import.meta.url), RefactorConfigSchema);

export default defineSpecialist({
  name: "refactor-agent",
  description:
    "Measures the workspace (file sizes, line counts, duplicated blocks) through its file tools and fails the step on files over the configured limits.",
  steps: [3, 4, 6],
  // Exported to another harness (flow export agents), it also works with that harness's own tools.
  harnessTools: [UniversalTool.read, UniversalTool.edit, UniversalTool.write, UniversalTool.grep, UniversalTool.glob],
  config,
  configSchema: RefactorConfigSchema,
  async think(ctx) {
    const work = await scriptedThenModel(ctx);
    if ("stop" in work) return work.stop;
    const files = WorkspaceFiles.from(ctx);
    if (typeof files === "string") return ctx.block(`cannot measure the workspace: ${files}`, ...work.evidence);
    try {
      const report = await measureWorkspace(files, ctx.config);
      if ("blocked" in report) return ctx.block(report.blocked, ...work.evidence, report.evidence);
      const evidence = [...work.evidence, report.evidence];
      return report.problems.length ? ctx.fail(report.summary, ...evidence) : ctx.pass(report.summary, ...evidence);
    } catch (error) {
      if (error instanceof ToolProblem)
        return ctx.block(`cannot measure the workspace: ${error.message}`, ...work.evidence);
      throw error;
    }
  },
});
