import type { ErrorCode, McpConfig, ToolDescriptor } from "@meshflow/core";
import type { ClientPoolOptions, Executor } from "@meshflow/mcp";
import type { SpecialistInfo } from "./specialists/defineSpecialist.js";

/** A server whose tools could not be listed. */
export interface DiscoveryFailure {
  server: string;
  code: ErrorCode;
  message: string;
}

/** How a name was resolved to a tool. */
export interface ToolResolution {
  qualifiedName: string;
  tier: string;
  warnings: string[];
}

/**
 * Everything the runtime needs from the tool side: discovery, repertoires, name resolution and an
 * executor. `createToolPlane` builds it from an MCP config (client pool, middleware chain, resolver,
 * skills and enrichers); benchmarks and embedders may pass their own.
 */
export interface ToolPlane {
  /** Configured server names. */
  servers(): readonly string[];
  /** Lists the tools of servers (cached); servers that fail are reported, not thrown. */
  discover(servers: readonly string[]): Promise<{ tools: ToolDescriptor[]; failures: DiscoveryFailure[] }>;
  /**
   * Starts connecting to servers without waiting for them (a run's servers start while the rest of it
   * loads); resolves once their processes are started. A later {@link discover} finds them ready or
   * reports their failure; nothing is thrown here.
   */
  start?(servers: readonly string[]): Promise<void>;
  /** A step's repertoire: its servers' tools, filtered by the specialist's skills and the enrichers. */
  repertoire(stepTools: readonly ToolDescriptor[], specialist: SpecialistInfo): ToolDescriptor[];
  /**
   * Capability ids of a discovered tool (`filesystem_read`, `code_execute`…), from the capability catalog;
   * empty when it is unclassified. Optional: a plane without a catalog leaves it out.
   */
  capabilities?(qualifiedName: string): readonly string[];
  /** Resolves a name to a tool of `tools`; throws `tool_not_found` / `tool_ambiguous` with candidates. */
  resolve(name: string, tools: readonly ToolDescriptor[], specialist: string): ToolResolution;
  readonly executor: Executor;
  /**
   * A plane over other servers (those of `mcpConfig`, started in their own pool) whose calls pass the
   * very middleware state of this one: its guard (rate limit, emergency stop), metrics collector,
   * confirmation gate and event sink. What a run starts per story worktree is made with it, so no call
   * escapes the run's limits. Its executor runs calls in this process. Optional: a plane without it
   * cannot have servers started per worktree.
   */
  sibling?(mcpConfig: McpConfig, pool?: ClientPoolOptions): Promise<ToolPlane>;
  /**
   * Masks the MCP config's secret values in text that enters the run from outside the tool calls
   * (verify commands' output). Optional: a plane without secrets leaves text as it is.
   */
  mask?(text: string): string;
  close(): Promise<void>;
}
