import { UniversalTool } from "@meshflow/core";
import { defineSpecialist, loadSpecialistConfig } from "@meshflow/runtime";
import { normalizePath } from "../shared/scope.js";
import { scriptedFirst } from "../shared/scriptedFirst.js";
import { ToolProblem } from "../shared/toolResults.js";
import { WorkspaceFiles } from "../shared/WorkspaceFiles.js";
import { DesignConfigSchema } from "./config.js";
import { findReferences } from "./findReferences.js";

const config = loadSpecialistConfig(new URL("./config.yaml", import.meta.url), DesignConfigSchema);

export default defineSpecialist({
  name: "design-agent",
  description:
    "Checks that the UI files a story names exist and are referenced by the rest of the workspace; otherwise runs the step's scripted calls, or is blocked.",
  steps: [11],
  // Exported to another harness (flow export agents), it also works with that harness's own tools.
  harnessTools: [UniversalTool.read, UniversalTool.grep, UniversalTool.glob],
  config,
  configSchema: DesignConfigSchema,
  async think(ctx) {
    const scripted = await scriptedFirst(ctx);
    if ("stop" in scripted) return scripted.stop;
    const uiFiles = ctx.config.uiFiles.map(normalizePath);
    if (!uiFiles.length) {
      if (ctx.scripted.length)
        return ctx.pass(
          `${ctx.scripted.length} scripted call(s) succeeded; no UI files named to check`,
          ...scripted.evidence,
        );
      return ctx.block(
        `no UI files to check and no calls for step ${ctx.step}: name them in agentConfig["design-agent"].uiFiles or add calls`,
      );
    }
    const files = WorkspaceFiles.from(ctx);
    if (typeof files === "string") return ctx.block(`cannot check the UI files: ${files}`, ...scripted.evidence);
    if (!files.canRead)
      return ctx.block("cannot check the UI files: no filesystem_read tool reads file contents", ...scripted.evidence);
    try {
      const missing: string[] = [];
      for (const file of uiFiles) if ((await files.readIfExists(file)) === undefined) missing.push(file);
      const listing = await files.list(ctx.config.referencedFrom);
      if (listing.truncated)
        return ctx.block(
          `the listing stopped at ${listing.files.length} files; narrow referencedFrom so every referrer is read`,
          ...scripted.evidence,
        );
      const texts: Array<{ path: string; text: string }> = [];
      for (const file of listing.files) {
        const content = file.binary ? undefined : await files.readIfExists(file.path);
        if (content && !content.binary) texts.push({ path: file.path, text: content.text });
      }
      const entries = new Set(ctx.config.entries.map(normalizePath));
      const referrers = findReferences(uiFiles, texts);
      const unreferenced = uiFiles.filter((f) => !missing.includes(f) && !entries.has(f) && !referrers.get(f)?.length);
      const evidence = [
        ...scripted.evidence,
        {
          tools: files.tools,
          uiFiles: uiFiles.map((f) => ({
            path: f,
            exists: !missing.includes(f),
            entry: entries.has(f),
            referencedBy: referrers.get(f) ?? [],
          })),
          searched: texts.length,
        },
      ];
      const problems = [
        ...missing.map((f) => `${f}: missing`),
        ...unreferenced.map((f) => `${f}: not referenced by any file in ${ctx.config.referencedFrom.paths.join(", ")}`),
      ];
      if (problems.length)
        return ctx.fail(`${problems.length} UI file problem(s): ${problems.join("; ")}`, ...evidence);
      return ctx.pass(
        `${uiFiles.length} UI file(s) exist and are wired in: ${uiFiles
          .map((f) => (entries.has(f) ? `${f} (entry)` : `${f} (from ${referrers.get(f)?.join(", ")})`))
          .join("; ")}`,
        ...evidence,
      );
    } catch (error) {
      if (error instanceof ToolProblem)
        return ctx.block(`cannot check the UI files: ${error.message}`, ...scripted.evidence);
      throw error;
    }
  },
});
