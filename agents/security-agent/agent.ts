import { UniversalTool } from "@meshflow/core";
import { defineSpecialist, loadSpecialistConfig, scriptedThenModel } from "@meshflow/runtime";
import { ToolProblem } from "../shared/toolResults.js";
import { WorkspaceFiles } from "../shared/WorkspaceFiles.js";
import { SecurityConfigSchema } from "./config.js";
import { scanWorkspace } from "./scanWorkspace.js";

const config = loadSpecialistConfig(new URL("./config.yaml", import.meta.url), SecurityConfigSchema);

export default defineSpecialist({
  name: "security-agent",
  description:
    "Scans the workspace through read-only file tools for secrets (API keys, tokens, private keys) and risky code; fails with file:line: rule findings, secrets masked.",
  steps: [8, 10],
  // Exported to another harness (flow export agents), it also works with that harness's own tools.
  harnessTools: [UniversalTool.read, UniversalTool.grep, UniversalTool.glob],
  readOnly: true,
  config,
  configSchema: SecurityConfigSchema,
  async think(ctx) {
    const work = await scriptedThenModel(ctx);
    if ("stop" in work) return work.stop;
    const files = WorkspaceFiles.from(ctx);
    if (typeof files === "string") return ctx.block(`cannot scan the workspace: ${files}`, ...work.evidence);
    if (!files.canRead)
      return ctx.block(
        "cannot scan the workspace: no filesystem_read tool reads file contents (read_text_file, read_file)",
        ...work.evidence,
      );
    try {
      const scan = await scanWorkspace(files, ctx.config);
      const evidence = [...work.evidence, scan.evidence];
      if (scan.outcome === "blocked") return ctx.block(scan.summary, ...evidence);
      return scan.outcome === "failed" ? ctx.fail(scan.summary, ...evidence) : ctx.pass(scan.summary, ...evidence);
    } catch (error) {
      if (error instanceof ToolProblem)
        return ctx.block(`cannot scan the workspace: ${error.message}`, ...work.evidence);
      throw error;
    }
  },
});
