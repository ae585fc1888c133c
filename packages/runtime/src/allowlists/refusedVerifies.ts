import { allowlistAllows, type McpConfig, type Story, statedAllowlist, type ToolDescriptor } from "@meshflow/core";
import { type Specialist, type StepView, specialistInfo } from "../specialists/defineSpecialist.js";
import { stepConfig } from "../specialists/specialistConfig.js";
import type { ToolPlane } from "../ToolPlane.js";
import { oneLine } from "../workflow/oneLine.js";
import { allowedText, allowFix } from "./allowFix.js";

/** A story's verify command that the tool its step runs it through would refuse: not on its allowlist. */
export interface VerifyRefusal {
  storyId: string;
  step: number;
  specialist: string;
  /** The command's index in the story's `verify`. */
  index: number;
  /** Its `name`, else its argv joined. */
  name: string;
  executable: string;
  /** The tool's qualified name, and its server. */
  tool: string;
  server: string;
  /** What the tool states it allows. */
  allowed: readonly string[];
  /** What to change in the MCP config (see `allowFix`). */
  fix: string;
  /** One sentence without the story's id: the command, the tool, the server, what it allows and the fix. */
  reason: string;
}

/** One step of a story, with what a run would know of it once its servers were listed. */
export interface VerifyStep {
  story: Story;
  step: number;
  /** The step's specialist; without one, or without a `verifyTool`, nothing is judged. */
  specialist: Specialist | undefined;
  /** The tools of the step's servers, as discovered. */
  stepTools: readonly ToolDescriptor[];
  /** Computes the specialist's repertoire and knows the tools' capabilities, as in the run. */
  plane: Pick<ToolPlane, "repertoire" | "capabilities">;
  mcpConfig: Pick<McpConfig, "file" | "servers">;
}

/** The tool the step's specialist says it runs the verify commands through, if any. */
function verifyToolOf(input: VerifyStep, specialist: Specialist): ToolDescriptor | undefined {
  const { story, step, plane, stepTools } = input;
  const settings = stepConfig(specialist, story);
  // Invalid settings block the step before it runs anything: not this check's to say.
  if (!settings.ok || !specialist.verifyTool) return undefined;
  const repertoire = stepTools.length ? plane.repertoire(stepTools, specialistInfo(specialist)) : [];
  const capabilitiesOf = (tool: string | ToolDescriptor) =>
    plane.capabilities?.(typeof tool === "string" ? tool : tool.qualifiedName) ?? [];
  const view: StepView = {
    story,
    step,
    specialist: specialistInfo(specialist),
    repertoire,
    config: settings.config,
    capabilitiesOf,
    toolsWith: (capability) => repertoire.filter((t) => capabilitiesOf(t).includes(capability)),
  };
  try {
    const tool = specialist.verifyTool(view);
    return typeof tool === "string" ? undefined : tool;
  } catch {
    // A check before the run never stops it: the step says at run time what goes wrong.
    return undefined;
  }
}

/**
 * The story's verify commands that its step would run through a tool that does not allow their
 * executable, judged by the allowlist the tool states (`"meshflow/allow"`): nothing when the step's
 * specialist has no `verifyTool`, names no tool, or the tool states no allowlist; a path whose match
 * depends on the server's root is not judged either. Starts nothing and calls nothing.
 */
export function refusedVerifies(input: VerifyStep): VerifyRefusal[] {
  const { story, step, specialist } = input;
  const commands = story.verify ?? [];
  if (!commands.length || !specialist?.verifyTool) return [];
  const tool = verifyToolOf(input, specialist);
  const allow = tool && statedAllowlist(tool);
  if (!tool || !allow) return [];
  return commands.flatMap((command, index) => {
    const executable = command.run[0] ?? "";
    if (allowlistAllows(allow, executable) !== false) return [];
    const name = command.name ?? command.run.join(" ");
    const fix = allowFix(tool.server, executable, input.mcpConfig);
    return [
      {
        storyId: story.id,
        step,
        specialist: specialist.name,
        index,
        name,
        executable,
        tool: tool.qualifiedName,
        server: tool.server,
        allowed: allow,
        fix,
        reason: `verify "${oneLine(name)}" would be refused by ${tool.qualifiedName} in step ${step} (${specialist.name}): MCP server "${tool.server}" does not allow ${JSON.stringify(executable)} (allowed: ${allowedText(allow)}); to allow it, ${fix}`,
      },
    ];
  });
}
