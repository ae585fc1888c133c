import { type ToolCall, type ToolResult, toMeshflowError } from "@meshflow/core";
import type { Executor } from "./Executor.js";
import type { CallContext, ToolHandler } from "./types.js";

/**
 * Runs every call in this process through the MCP middleware chain (metrics → guard → policy →
 * confirmation → validation → client). The default executor of `flow run`.
 *
 * @example
 * const executor = new InlineExecutor(createToolChain({ pool }));
 * const result = await executor.submit({ key: "run1/US-001/step1/1", tool: "memory__read_graph", args: {} }, {});
 */
export class InlineExecutor implements Executor {
  readonly #chain: ToolHandler;
  #closed = false;

  constructor(chain: ToolHandler) {
    this.#chain = chain;
  }

  async submit(call: ToolCall, ctx: CallContext): Promise<ToolResult> {
    if (this.#closed) return refusal("aborted", `executor is closed; ${call.tool} (${call.key}) was not run`);
    const context: CallContext = {
      ...ctx,
      runId: ctx.runId ?? call.runId,
      storyId: ctx.storyId ?? call.storyId,
      step: ctx.step ?? call.step,
    };
    try {
      return await this.#chain(call.tool, call.args, context);
    } catch (error) {
      // The chain reports tool-level problems as results; anything thrown is still a result here, so
      // a caller never loses track of a call.
      const failure = toMeshflowError(error, "tool_error");
      return refusal(failure.code, `${call.tool}: ${failure.message}`);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
  }
}

function refusal(code: ToolResult["code"], text: string): ToolResult {
  return { isError: true, code, content: [{ type: "text", text }] };
}
