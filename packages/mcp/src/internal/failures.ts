import { type ErrorCode, MeshflowError } from "@meshflow/core";
import { McpError, ErrorCode as RpcCode } from "@modelcontextprotocol/sdk/types.js";
import { errorText, indent } from "./errorText.js";
import type { OversizedMessage } from "./JsonRpcLineReader.js";
import { isTooLargeData, LIMIT_SETTING } from "./oversized.js";
import { scrubText } from "./secrets.js";

/** What a failure message says about the server it happened on. */
export interface FailureContext {
  server: string;
  /** Command or URL as the config writes it. */
  endpoint: string;
  secrets: readonly string[];
  /** The server's stderr tail, already scrubbed. */
  tail: string;
  /** True when the pool itself closed the connection. */
  closedByPool: boolean;
  /** Set when the connection was closed for a message over the limit that named no request. */
  oversized?: OversizedMessage | undefined;
  /** A process of ours (stdio), whose silence on stderr is worth saying; an HTTP server has no stderr here. */
  process?: boolean;
}

const isRpc = (error: unknown, code: RpcCode) => error instanceof McpError && error.code === code;

function withTail(ctx: FailureContext, message: string): string {
  // A blank tail printed as `stderr:` and nothing after it, which read like output lost.
  if (ctx.tail.trim()) return `${message}; stderr:\n${indent(ctx.tail.replace(/\s+$/, ""))}`;
  return ctx.process ? `${message}; it wrote nothing to stderr` : message;
}

/** Why a server could not be started or initialized: `connect_timeout` or `server_unreachable`. */
export function connectFailure(error: unknown, ctx: FailureContext, connectTimeoutMs: number): MeshflowError {
  const where = `server "${ctx.server}" (${ctx.endpoint})`;
  const details = { server: ctx.server, endpoint: ctx.endpoint, stderrTail: ctx.tail };
  if (isRpc(error, RpcCode.RequestTimeout))
    return new MeshflowError(
      "connect_timeout",
      withTail(ctx, `${where} did not answer initialize within ${connectTimeoutMs} ms`),
      { cause: error, details },
    );
  const reason = isRpc(error, RpcCode.ConnectionClosed) ? "exited" : scrubText(errorText(error), ctx.secrets);
  return new MeshflowError("server_unreachable", withTail(ctx, `${where} could not be started or reached: ${reason}`), {
    cause: error,
    details,
  });
}

/** Why `tools/list` failed: `call_timeout`, `server_crashed` or `server_unreachable`. */
export function listFailure(error: unknown, ctx: FailureContext): MeshflowError {
  const code: ErrorCode = isRpc(error, RpcCode.RequestTimeout)
    ? "call_timeout"
    : isRpc(error, RpcCode.ConnectionClosed) && !ctx.closedByPool
      ? "server_crashed"
      : "server_unreachable";
  const message = `server "${ctx.server}": tools/list failed: ${scrubText(errorText(error), ctx.secrets)}`;
  return new MeshflowError(code, withTail(ctx, message), { cause: error, details: { server: ctx.server } });
}

/**
 * Why a `tools/call` failed, as a stable code and a message naming server, tool and cause.
 * `transportFailed` says the connection is unusable although it did not close (reconnect next time).
 */
export function callFailure(
  error: unknown,
  ctx: FailureContext,
  tool: string,
  signal: AbortSignal | undefined,
  timeoutMs: number,
): { code: ErrorCode; message: string; transportFailed: boolean } {
  const at = `server "${ctx.server}", tool "${tool}"`;
  const result = (code: ErrorCode, message: string, transportFailed = false) => ({ code, message, transportFailed });
  if (signal?.aborted) return result("aborted", `${at}: the call was aborted`);
  if (isRpc(error, RpcCode.RequestTimeout))
    return result("call_timeout", `${at}: no answer within ${timeoutMs} ms (the call was cancelled)`);
  if (error instanceof McpError && isTooLargeData(error.data))
    return result(
      "result_too_large",
      `${at}: the answer is ${error.data.bytes} bytes, more than the limit of ${error.data.limit} (${LIMIT_SETTING}); this call failed, the server goes on`,
    );
  if (isRpc(error, RpcCode.ConnectionClosed) && ctx.oversized)
    return result(
      "result_too_large",
      `${at}: the server sent a message of ${ctx.oversized.bytes} bytes, more than the limit of ${ctx.oversized.limit} (${LIMIT_SETTING}), that named no call; the server was restarted`,
    );
  if (isRpc(error, RpcCode.ConnectionClosed))
    return ctx.closedByPool
      ? result("aborted", `${at}: the client pool was closed during the call`)
      : result("server_crashed", withTail(ctx, `${at}: the server exited during the call; the next call restarts it`));
  if (error instanceof McpError) return result("tool_error", `${at}: ${scrubText(error.message, ctx.secrets)}`);
  if (error instanceof Error && error.name === "ZodError")
    return result("tool_error", `${at}: the server's answer is not a valid tools/call result`);
  // The transport itself failed (HTTP server gone, pipe closed).
  return result("server_unreachable", withTail(ctx, `${at}: ${scrubText(errorText(error), ctx.secrets)}`), true);
}
