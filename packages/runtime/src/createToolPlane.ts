import type { McpConfig, ToolDescriptor } from "@meshflow/core";
import { configSecrets, MeshflowError, scrubText } from "@meshflow/core";
import type {
  ClientPool,
  ClientPoolOptions,
  ConfirmationGate,
  EventSink,
  Guard,
  MetricsCollector,
  ToolHandler,
} from "@meshflow/mcp";
import { type Executor, InlineExecutor } from "@meshflow/mcp";
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
  /** The confirmation tokens of destructive calls; default: a gate of its own. */
  confirmation?: ConfirmationGate;
  /** Runs calls somewhere else than in this process (a queue); default: an {@link InlineExecutor} over the chain. */
  executor?: (chain: ToolHandler) => Executor;
}

/** The stateful middleware of a plane's call path, which its {@link ToolPlane.sibling} planes share. */
interface CallPath {
  guard: Guard;
  metrics: MetricsCollector;
  confirmation: ConfirmationGate;
}

interface Pooled {
  pool: ClientPool;
  chain: ToolHandler;
}

interface Loaded extends Pooled {
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
  let pooling: Promise<Pooled> | undefined;
  let closed = false;
  let pathing: Promise<CallPath> | undefined;
  // One guard, one metrics collector, one confirmation gate for every call of this plane and its siblings.
  const callPath = (): Promise<CallPath> => {
    pathing ??= (async () => {
      const { ConfirmationGate, Guard, MetricsCollector } = await import("@meshflow/mcp");
      return {
        guard: options.guard ?? new Guard(),
        metrics: options.metrics ?? new MetricsCollector(),
        confirmation: options.confirmation ?? new ConfirmationGate(),
      };
    })();
    return pathing;
  };
  // The client pool needs only the MCP layer; the rules (skills, capability catalog, resolver) load
  // beside it, so servers can be started before the rest is ready.
  const loadPool = (): Promise<Pooled> => {
    pooling ??= (async () => {
      const [{ ClientPool, createToolChain }, path] = await Promise.all([import("@meshflow/mcp"), callPath()]);
      const pool =
        options.clientPool ??
        new ClientPool(options.mcpConfig.servers, {
          clientInfo: { name: "meshflow", version: "0.1.0" },
          ...options.pool,
        });
      const chain = createToolChain({
        pool,
        ...path,
        ...(options.onMiddlewareEvent ? { onEvent: options.onMiddlewareEvent } : {}),
      });
      return { pool, chain };
    })();
    return pooling;
  };
  const load = (): Promise<Loaded> => {
    loading ??= (async () => {
      const [pooled, { RepertoireRules }] = await Promise.all([loadPool(), import("./internal/RepertoireRules.js")]);
      loaded = { ...pooled, rules: new RepertoireRules(options) };
      return loaded;
    })();
    return loading;
  };
  const chain: ToolHandler = async (name, args, ctx) => (await load()).chain(name, args, ctx);
  const executor = options.executor ? options.executor(chain) : new InlineExecutor(chain);

  const secrets = configSecrets(options.mcpConfig.servers.values());
  return {
    servers: () => [...options.mcpConfig.servers.keys()],
    mask: (text) => scrubText(text, secrets),
    async start(servers) {
      const known = servers.filter((s) => options.mcpConfig.servers.has(s));
      if (!known.length) return;
      const { pool } = await loadPool();
      // Connecting spawns a stdio server at once; the listing is cached for discover(), errors reported there.
      for (const server of known) pool.listTools(server).catch(() => undefined);
    },
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
    async sibling(mcpConfig, pool) {
      // Its calls run here, through this plane's guard, metrics and confirmation gate (never through a
      // queue: the workers would start the servers with their own configuration).
      return createToolPlane({
        mcpConfig,
        ...(pool ? { pool } : {}),
        ...(await callPath()),
        ...(options.onMiddlewareEvent ? { onMiddlewareEvent: options.onMiddlewareEvent } : {}),
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      await executor.close();
      if (pooling && !options.clientPool) await (await pooling).pool.close();
    },
  };
}
