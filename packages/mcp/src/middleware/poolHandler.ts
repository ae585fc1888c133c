import { parseQualifiedName, type ToolResult } from "@meshflow/core";
import type { ClientPool, PoolCallOptions } from "../ClientPool.js";
import { callIds, refuse } from "../refusal.js";
import type { CallContext, EventSink, ToolHandler } from "../types.js";

const NO_OPTIONS: PoolCallOptions = {};

/**
 * The end of the chain: the call on the pool's client of the tool's server. Transport failures
 * (`server_crashed`, `call_timeout`, `server_unreachable`, …) come back as results and are reported
 * as `tool.refused` events of stage `call`; a refusal by `ctx.beforeSend` was reported by its own stage.
 */
export function poolHandler(pool: ClientPool, options: { onEvent?: EventSink } = {}): ToolHandler {
  const emit = options.onEvent;
  const report = (tool: string, ctx: CallContext, result: ToolResult): ToolResult => {
    if (result.code !== undefined && emit) {
      const error = result.structuredContent?.error as { message?: unknown } | undefined;
      const message = typeof error?.message === "string" ? error.message : result.code;
      const time = new Date().toISOString();
      emit({ type: "tool.refused", time, ...callIds(ctx), tool, stage: "call", code: result.code, message });
    }
    return result;
  };
  return (tool, args, ctx) => {
    const descriptor = pool.cachedTool(tool);
    const target = descriptor ? { server: descriptor.server, tool: descriptor.name } : parseQualifiedName(tool);
    if (!target) {
      const message = `"${tool}" is not a qualified tool name <server>__<tool>`;
      return Promise.resolve(refuse(emit, "call", tool, ctx, "tool_not_found", message));
    }
    const askedBeforeSend = ctx.beforeSend;
    // A refusal at send time was reported by the stage that made it (the guard): not again as `call`.
    let refusedAtSend: ToolResult | undefined;
    const beforeSend =
      askedBeforeSend === undefined
        ? undefined
        : () => {
            refusedAtSend = askedBeforeSend();
            return refusedAtSend;
          };
    const callOptions: PoolCallOptions =
      ctx.signal === undefined && ctx.timeoutMs === undefined && beforeSend === undefined
        ? NO_OPTIONS
        : {
            ...(ctx.signal !== undefined ? { signal: ctx.signal } : {}),
            ...(ctx.timeoutMs !== undefined ? { timeoutMs: ctx.timeoutMs } : {}),
            ...(beforeSend !== undefined ? { beforeSend } : {}),
          };
    const pending = pool.callTool(target.server, target.tool, args, callOptions);
    // Without a sink there is nothing to report: the pool's promise is handed on as it is.
    return emit ? pending.then((result) => (result === refusedAtSend ? result : report(tool, ctx, result))) : pending;
  };
}
