import { z } from "@meshflow/runtime";
import { ScopeSchema } from "../shared/scope.js";

/** design-agent's settings: `config.yaml` beside the agent, a story's `agentConfig["design-agent"]` over it. */
export const DesignConfigSchema = z.strictObject({
  uiFiles: z.array(z.string().min(1)).describe("UI files the story names, relative to the workspace root"),
  entries: z
    .array(z.string().min(1))
    .describe("Those of `uiFiles` that are entry points (index.html): they must exist, nothing has to reference them"),
  referencedFrom: ScopeSchema.describe("Where references to the UI files are looked for"),
});
