import { resolve } from "node:path";
import { loadMcpConfig, type McpConfig, type McpServerConfig, MeshflowError } from "@meshflow/core";
import type { Executor } from "@meshflow/mcp";
import type { ToolPlane } from "../../ToolPlane.js";

/** What {@link WorktreePlanes} starts servers from. */
export interface WorktreePlanesOptions {
  /** The run's MCP config (expanded in the run's environment). */
  mcpConfig: McpConfig;
  /**
   * The run's tool plane: calls of the servers that do not depend on the workspace go to its executor,
   * and the servers started per worktree are its {@link ToolPlane.sibling}s, so their calls pass the
   * run's one guard (rate limit, emergency stop), metrics and confirmation gate.
   */
  plane: ToolPlane;
  /** Where each server's stderr log goes (a folder per worktree is made under it). */
  logDir?: string;
  /** The variables `${…}` references read; default the process's. */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The MCP servers of isolated stories: a server whose config changes when `${FLOW_WORKSPACE}` names a
 * story's worktree (a filesystem or workspace server rooted there) is started once per worktree, with
 * the variable set to it; every other server stays the run's, shared by all stories. Either way a call
 * passes the run's middleware: a worktree's servers are siblings of the run's plane, sharing its guard,
 * metrics and confirmation gate (the journal, replays and the run's confirmation of destructive calls
 * sit above any executor, in the step's call path).
 */
export class WorktreePlanes {
  readonly #options: WorktreePlanesOptions;
  readonly #planes = new Map<string, Promise<ToolPlane>>();

  constructor(options: WorktreePlanesOptions) {
    if (!options.plane.sibling)
      throw new MeshflowError(
        "internal",
        "the run's tool plane cannot start servers per worktree (it has no sibling()): their calls would escape the run's guard",
      );
    this.#options = options;
  }

  /**
   * The executor of the story working in `dir`: calls of its workspace servers go to servers started
   * for `dir`, the others to the run's. Undefined when no server depends on the workspace. Those of
   * `start` start now, without waiting for them (`dir` must exist): while git fills the worktree; the
   * others start with their first call.
   */
  executorFor(dir: string, start: readonly string[] = []): Executor | undefined {
    const config = this.#configFor(dir);
    if (!config) return undefined;
    const run = this.#options.plane;
    const shared = run.executor;
    let plane = this.#planes.get(dir);
    if (!plane) {
      const pool = this.#options.logDir ? { stderrDir: resolve(this.#options.logDir) } : undefined;
      plane = run.sibling?.(config, pool) ?? Promise.reject(new MeshflowError("internal", "no sibling plane"));
      this.#planes.set(dir, plane);
    }
    const own = new Set(config.servers.keys());
    const early = start.filter((server) => own.has(server));
    // A server that fails to start says so at the story's first call of it.
    if (early.length) plane.then((made) => made.start?.(early)).catch(() => undefined);
    const planeOf = plane;
    return {
      async submit(call, ctx) {
        const server = call.tool.slice(0, Math.max(0, call.tool.indexOf("__")));
        return own.has(server) ? (await planeOf).executor.submit(call, ctx) : shared.submit(call, ctx);
      },
      close: async () => {},
    };
  }

  /** Stops the servers started for `dir`. */
  async release(dir: string): Promise<void> {
    const plane = this.#planes.get(dir);
    this.#planes.delete(dir);
    if (plane) await (await plane).close();
  }

  /** Stops every worktree's servers. */
  async close(): Promise<void> {
    await Promise.all([...this.#planes.keys()].map((dir) => this.release(dir)));
  }

  /** The run's config reduced to the servers that depend on the workspace, expanded for `dir`; undefined when none does. */
  #configFor(dir: string): McpConfig | undefined {
    const { mcpConfig } = this.#options;
    if (!mcpConfig.file) return undefined;
    const env = { ...(this.#options.env ?? process.env), FLOW_WORKSPACE: dir };
    const there = loadMcpConfig({ file: resolve(mcpConfig.file), env });
    const servers = new Map<string, McpServerConfig>();
    for (const [name, server] of there.servers) {
      const shared = mcpConfig.servers.get(name);
      if (shared && same(shared, server)) continue;
      servers.set(name, server);
    }
    return servers.size ? { ...there, servers } : undefined;
  }
}

function same(a: McpServerConfig, b: McpServerConfig): boolean {
  const { expandedValues: _a, ...left } = a;
  const { expandedValues: _b, ...right } = b;
  return JSON.stringify(left) === JSON.stringify(right);
}
