import type { McpConfig, ToolDescriptor } from "@meshflow/core";
import { MeshflowError } from "@meshflow/core";
import type { ClientPool, ClientPoolOptions, EventSink, Guard, MetricsCollector, ToolHandler } from "@meshflow/mcp";
import { type Executor, InlineExecutor } from "@meshflow/queue";
import type { RepertoireRules, RepertoireRulesOptions } from "./internal/RepertoireRules.js";
import type { DiscoveryFailure, ToolPlane } from "./ToolPlane.js";

/** Options of {@link createToolPlane}. */
export interface ToolPlaneOptions extends RepertoireRulesOptions {
  mcpConfig: McpConfig;
  /** Client pool settings: timeouts, a folder for the servers' stderr logs, transports for tests. */
  pool?: ClientPoolOptions;
  /**
   * A pool to use instead of making one (a queue worker shares its pool between discovery and the
   * calls it executes). The plane does not close it: its owner does.
   */
  clientPool?: ClientPool;
  /** Middleware events: refusals, guard changes, skipped validation. */
  onMiddlewareEvent?: EventSink;
  /**
   * The process's one guard (rate limit, emergency stop): pass the one its diagnose and unlock
   * tools see. Default: a guard of its own with the default limit.
   */
  guard?: Guard;
  /** Call metrics (latency percentiles, errors) of every call of the run. */
  metrics?: MetricsCollector;
  /** Runs calls somewhere else than in this process (a queue); default: an {@link InlineExecutor} over the chain. */
  executor?: (chain: ToolHandler) => Executor;
}

interface Loaded {
  pool: ClientPool;
  chain: ToolHandler;
  rules: RepertoireRules;
}

/**
 * The tool side of runs, from an MCP config: a `ClientPool` (one client per server, shared), the
 * middleware chain (metrics → guard → policy → confirmation → validation → call) behind an executor,
 * and the repertoire rules (skills, capability index, alias maps, enrichers) with the resolver.
 * The MCP and resolver layers load with the first server a run discovers: a PRD whose steps name no
 * server needs neither.
 *
 * @example
 * const plane = await createToolPlane({ mcpConfig: loadMcpConfig(), skillsDir: "skills" });
 * const { tools, failures } = await plane.discover(["memory"]);
 * await plane.close();
 */
export async function createToolPlane(options: ToolPlaneOptions): Promise<ToolPlane> {
  let loading: Promise<Loaded> | undefined;
  let loaded: Loaded | undefined;
  let closed = false;
  const load = (): Promise<Loaded> => {
    loading ??= (async () => {
      const [{ ClientPool, createToolChain }, { RepertoireRules }] = await Promise.all([
        import("@meshflow/mcp"),
        import("./internal/RepertoireRules.js"),
      ]);
      const pool =
        options.clientPool ??
        new ClientPool(options.mcpConfig.servers, {
          clientInfo: { name: "meshflow", version: "0.1.0" },
          ...options.pool,
        });
      const chain = createToolChain({
        pool,
        ...(options.metrics ? { metrics: options.metrics } : {}),
        ...(options.guard ? { guard: options.guard } : {}),
        ...(options.onMiddlewareEvent ? { onEvent: options.onMiddlewareEvent } : {}),
      });
      loaded = { pool, chain, rules: new RepertoireRules(options) };
      return loaded;
    })();
    return loading;
  };
  const chain: ToolHandler = async (name, args, ctx) => (await load()).chain(name, args, ctx);
  const executor = options.executor ? options.executor(chain) : new InlineExecutor(chain);

  return {
    servers: () => [...options.mcpConfig.servers.keys()],
    async discover(servers) {
      if (!servers.length) return { tools: [], failures: [] };
      const { pool, rules } = await load();
      const known = servers.filter((s) => options.mcpConfig.servers.has(s));
      const failures: DiscoveryFailure[] = servers
        .filter((s) => !options.mcpConfig.servers.has(s))
        .map((server) => ({ server, code: "server_unknown", message: `no MCP server "${server}" is configured` }));
      const found = await pool.discover(known);
      for (const f of found.failures)
        failures.push({
          server: f.server,
          code: f.code,
          message: `${f.message}${f.stderrTail ? `\n  stderr: ${f.stderrTail.trim().split("\n").join("\n  stderr: ")}` : ""}`,
        });
      await rules.classify(found.tools);
      return { tools: found.tools, failures };
    },
    repertoire: (stepTools, specialist) =>
      loaded && stepTools.length ? loaded.rules.repertoire(stepTools, specialist) : ([] as ToolDescriptor[]),
    capabilities: (qualifiedName) => loaded?.rules.capabilitiesOf(qualifiedName) ?? [],
    resolve(name, tools, specialist) {
      if (!loaded) throw new MeshflowError("tool_not_found", `no tool "${name}": no MCP server was discovered`);
      return loaded.rules.resolve(name, tools, specialist);
    },
    executor,
    async close() {
      if (closed) return;
      closed = true;
      await executor.close();
      if (loading && !options.clientPool) await (await loading).pool.close();
    },
  };
}
