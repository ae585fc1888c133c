import { type ToolResult, toMeshflowError } from "@meshflow/core";
import type { ClientPool } from "../ClientPool.js";
import type { ConfirmationGate } from "../ConfirmationGate.js";
import { composeMiddleware } from "../composeMiddleware.js";
import type { Guard } from "../Guard.js";
import type { MetricsCollector } from "../MetricsCollector.js";
import { buildMiddleware, MIDDLEWARE_PARTS } from "../middleware/middlewareParts.js";
import { poolHandler } from "../middleware/poolHandler.js";
import { refusal } from "../refusal.js";
import type { SchemaValidator } from "../SchemaValidator.js";
import type { CallContext, DescribeTool, EventSink, ToolHandler } from "../types.js";

/** A served tool passes every middleware but the repertoire policy (a session's repertoire is what it lists). */
const SERVER_CHAIN = MIDDLEWARE_PARTS.map((part) => part.name).filter((name) => name !== "policy");

/** A tool implemented in the server process, found by its chain name. */
export type LocalHandler = (args: Record<string, unknown>, ctx: CallContext) => Promise<ToolResult>;

/** Options of {@link createServerChain}. The stateful parts are shared by every session of a server. */
export interface ServerChainOptions {
  pool: ClientPool;
  metrics: MetricsCollector;
  guard: Guard;
  confirmation: ConfirmationGate;
  validator: SchemaValidator;
  /** Descriptors of local and proxied tools (schema, annotations). */
  describe: DescribeTool;
  /** The local implementation of a chain name, or undefined for a downstream server's tool. */
  local: (chainName: string) => LocalHandler | undefined;
  onEvent?: EventSink;
}

/**
 * The call path of a served tool: metrics → guard → confirmation → validation → the tool, where the
 * tool is a local implementation or the downstream server through the pool. The repertoire policy
 * has no place here: an MCP client's repertoire is the tools its session lists. A local tool that
 * throws becomes a refusal with its error's code, never an exception.
 */
export function createServerChain(options: ServerChainOptions): ToolHandler {
  const emit = options.onEvent ? { onEvent: options.onEvent } : {};
  const remote = poolHandler(options.pool, emit);
  const dispatch: ToolHandler = (tool, args, ctx) => {
    const local = options.local(tool);
    if (!local) return remote(tool, args, ctx);
    try {
      return local(args, ctx).catch(failure);
    } catch (error) {
      return Promise.resolve(failure(error));
    }
  };
  return composeMiddleware(buildMiddleware(SERVER_CHAIN, options), dispatch);
}

/** A thrown error as a refusal; its details (problems, candidates…) travel along. */
function failure(error: unknown): ToolResult {
  const e = toMeshflowError(error);
  return refusal(e.code, e.message, Object.keys(e.details).length ? { ...e.details } : undefined);
}
