import { digestOf, type ToolDescriptor } from "@meshflow/core";
import type { CallScope } from "../internal/toolCall.js";

/**
 * The own tools of a coding agent that change nothing, by program: under `--approve destructive` their
 * permission prompts are allowed at once. Claude Code's `WebFetch` and `WebSearch` read from the network
 * and write nothing, so they count as read-only too (a rule naming them makes them wait). Every other
 * tool, and every tool of a program not listed, counts as one that can change something.
 */
const READ_ONLY_OWN_TOOLS: Readonly<Record<string, ReadonlySet<string>>> = {
  "claude-code": new Set(["Read", "Glob", "Grep", "LS", "NotebookRead", "TodoWrite", "WebFetch", "WebSearch"]),
};

/** A coding agent's own tool as the approvals see it: server `<program>`, tool `<Tool>`, its hints. */
export function ownToolDescriptor(program: string, tool: string): ToolDescriptor {
  const readOnly = READ_ONLY_OWN_TOOLS[program]?.has(tool) === true;
  return {
    server: program,
    name: tool,
    qualifiedName: `${program}__${tool}`,
    description: `${program}'s own ${tool} tool`,
    inputSchema: {},
    annotations: readOnly ? { readOnlyHint: true } : { readOnlyHint: false, destructiveHint: true },
  };
}

/**
 * A coding agent's permission prompt for one of its own tools (`Bash`, `Write`…), through the run's
 * approvals as any call: the tool is `<program>__<Tool>` (server `<program>`), its input the arguments,
 * so `--approve all` makes every prompt wait, `--approve destructive` every tool that can change
 * something (see {@link READ_ONLY_OWN_TOOLS}), and rules match by server, tool and arguments. A prompt
 * the policy does not ask about is allowed at once. The request is keyed by the program, tool and input
 * within the step (`<run>/<story>/step<n>/claude-code.Bash.<digest>`), so the same question asked again
 * (a resumed step) meets the same decision.
 */
export async function approveOwnTool(
  scope: CallScope,
  program: string,
  tool: string,
  input: Record<string, unknown>,
): Promise<{ allow: true } | { allow: false; reason: string }> {
  const gate = scope.approvals;
  if (!gate) return { allow: false, reason: "this run asks for no approvals" };
  const { runId, storyId, step, specialist } = scope;
  const digest = digestOf({ tool, input })
    .replace(/^sha256:/, "")
    .slice(0, 16);
  const base = scope.consult ? scope.consult.keyBase : `step${step}`;
  const verdict = await gate.check(
    {
      runId,
      key: `${runId}/${storyId}/${base}/${program}.${tool}.${digest}`,
      storyId,
      step,
      ...(scope.consult ? { consult: scope.consult.id } : {}),
      specialist,
      tool: ownToolDescriptor(program, tool),
      args: input,
      argsDigest: digestOf(input),
    },
    scope.signal,
  );
  return verdict.allow ? { allow: true } : { allow: false, reason: verdict.reason };
}
