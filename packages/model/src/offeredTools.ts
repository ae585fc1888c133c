import type { ModelRequestSize, ModelTask } from "@meshflow/core";
import type { ChatTool } from "./ChatModel.js";
import { FINISHING_SCHEMA, FINISHING_TOOLS, systemPrompt, taskMessage } from "./prompt.js";
import { safeToolNames } from "./safeToolNames.js";

/** A step's tools as a model or harness is offered them: provider-safe names, and the way back. */
export interface OfferedTools {
  /** The repertoire (with its annotations) and the finishing tools. */
  tools: Array<ChatTool & { annotations?: Record<string, unknown> }>;
  /** Offered name → the repertoire's qualified name. */
  qualified: Map<string, string>;
}

/**
 * The tools of a step's task as a model (or a harness, through meshflow's step server) is offered
 * them: the repertoire under provider-safe names (`server__tool` stays as it is) with its JSON
 * Schemas and hints, then `step_pass`, `step_fail` and `step_block`.
 */
export function offeredTools(task: ModelTask): OfferedTools {
  const names = safeToolNames(
    task.tools.map((t) => t.qualifiedName),
    Object.keys(FINISHING_TOOLS),
  );
  const qualified = new Map<string, string>();
  const tools: OfferedTools["tools"] = task.tools.map((t) => {
    const name = names.get(t.qualifiedName) ?? t.qualifiedName;
    qualified.set(name, t.qualifiedName);
    const hints = t.annotations as Record<string, unknown> | undefined;
    return {
      name,
      description: t.description ?? "",
      inputSchema: (t.inputSchema as Record<string, unknown> | undefined) ?? { type: "object" },
      ...(hints && Object.keys(hints).length ? { annotations: hints } : {}),
    };
  });
  for (const [name, description] of Object.entries(FINISHING_TOOLS))
    tools.push({ name, description, inputSchema: { ...FINISHING_SCHEMA } });
  return { tools, qualified };
}

/** The size of a step's first request: the prompt and the tool definitions (`flow run --dry-run`). */
export function requestSize(task: ModelTask, tools: readonly ChatTool[]): ModelRequestSize {
  const bytes = (s: string) => Buffer.byteLength(s);
  return {
    promptBytes: bytes(systemPrompt(task)) + bytes(taskMessage(task)),
    toolBytes: bytes(JSON.stringify(tools)),
    tools: tools.length,
  };
}
