import { digestOf } from "@meshflow/core";
import type { CallScope } from "../internal/toolCall.js";

/**
 * A coding agent's permission prompt for one of its own tools (`Bash`, `Write`…), through the run's
 * approvals: the request is keyed by the program, tool and input within the step
 * (`<run>/<story>/step<n>/claude-code.Bash.<digest>`), so the same question asked again (a resumed
 * step) meets the same decision. Every such prompt waits for a person, whatever the rules say.
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
      tool: {
        server: program,
        name: tool,
        qualifiedName: `${program}__${tool}`,
        description: `${program}'s own ${tool} tool`,
        inputSchema: {},
        annotations: {},
      },
      args: input,
      argsDigest: digestOf(input),
    },
    scope.signal,
    `${program} asks permission for its own ${tool} tool`,
  );
  return verdict.allow ? { allow: true } : { allow: false, reason: verdict.reason };
}
