import { UniversalTool } from "@meshflow/core";
import { defineSpecialist, loadSpecialistConfig, scriptedThenModel } from "@meshflow/runtime";
import { normalizePath } from "../shared/scope.js";
import { ToolProblem } from "../shared/toolResults.js";
import { WorkspaceFiles } from "../shared/WorkspaceFiles.js";
import { DesignConfigSchema } from "./config.js";
import { findReferences } from "./findReferences.js";

const config = loadSpecialistConfig(new URL("./config.yaml", import.meta.url), DesignConfigSchema);

export default defineSpecialist({
  name: "design-agent",
  description:
    "Lets the step's model (or scripted calls) do the UI work, then checks that the UI files a story names exist and are referenced by the rest of the workspace; blocked with nothing to do or check.",
  steps: [11],
  // Exported to another harness (flow export agents), it also works with that harness's own tools.
  harnessTools: [UniversalTool.read, UniversalTool.grep, UniversalTool.glob],
  config,
  configSchema: DesignConfigSchema,
  async think(ctx) {
    const work = await scriptedThenModel(ctx);
    if ("stop" in work) return work.stop;
    const uiFiles = ctx.config.uiFiles.map(normalizePath);
    if (!uiFiles.length) {
      // No UI files to check: the model's claim stands for the step and the story's verify gate decides.
      if (work.claim)
        return ctx.pass(
          `${ctx.model?.name}: ${work.claim.summary} (no UI files named in agentConfig["design-agent"].uiFiles to check)`,
          ...work.evidence,
        );
      if (ctx.scripted.length)
        return ctx.pass(
          `${ctx.scripted.length} scripted call(s) succeeded; no UI files named to check`,
          ...work.evidence,
        );
      return ctx.block(
        `no UI files to check, no calls for step ${ctx.step} and no model: name them in agentConfig["design-agent"].uiFiles, add calls or configure a model`,
      );
    }
    const files = WorkspaceFiles.from(ctx);
    if (typeof files === "string") return ctx.block(`cannot check the UI files: ${files}`, ...work.evidence);
    if (!files.canRead)
      return ctx.block("cannot check the UI files: no filesystem_read tool reads file contents", ...work.evidence);
    try {
      const missing: string[] = [];
      for (const file of uiFiles) if ((await files.readIfExists(file)) === undefined) missing.push(file);
      const listing = await files.list(ctx.config.referencedFrom);
      if (listing.truncated)
        return ctx.block(
          `the listing stopped at ${listing.files.length} files; narrow referencedFrom so every referrer is read`,
          ...work.evidence,
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
        ...work.evidence,
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
        return ctx.block(`cannot check the UI files: ${error.message}`, ...work.evidence);
      throw error;
    }
  },
});
