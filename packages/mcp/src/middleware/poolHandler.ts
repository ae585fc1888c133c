import { parseQualifiedName } from "@meshflow/core";
import type { ClientPool, PoolCallOptions } from "../ClientPool.js";
import { callIds, refuse } from "../refusal.js";
import type { EventSink, ToolHandler } from "../types.js";

const NO_OPTIONS: PoolCallOptions = {};

/**
 * The end of the chain: the call on the pool's client of the tool's server. Transport failures
 * (`server_crashed`, `call_timeout`, `server_unreachable`, …) come back as results and are reported
 * as `tool.refused` events of stage `call`.
 */
export function poolHandler(pool: ClientPool, options: { onEvent?: EventSink } = {}): ToolHandler {
  const emit = options.onEvent;
  return async (tool, args, ctx) => {
    const descriptor = pool.cachedTool(tool);
    const target = descriptor ? { server: descriptor.server, tool: descriptor.name } : parseQualifiedName(tool);
    if (!target)
      return refuse(
        emit,
        "call",
        tool,
        ctx,
        "tool_not_found",
        `"${tool}" is not a qualified tool name <server>__<tool>`,
      );
    const callOptions: PoolCallOptions =
      ctx.signal === undefined && ctx.timeoutMs === undefined
        ? NO_OPTIONS
        : {
            ...(ctx.signal !== undefined ? { signal: ctx.signal } : {}),
            ...(ctx.timeoutMs !== undefined ? { timeoutMs: ctx.timeoutMs } : {}),
          };
    const result = await pool.callTool(target.server, target.tool, args, callOptions);
    if (result.code !== undefined && emit) {
      const error = result.structuredContent?.error as { message?: unknown } | undefined;
      const message = typeof error?.message === "string" ? error.message : result.code;
      emit({
        type: "tool.refused",
        time: new Date().toISOString(),
        ...callIds(ctx),
        tool,
        stage: "call",
        code: result.code,
        message,
      });
    }
    return result;
  };
}
