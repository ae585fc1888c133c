import type { McpServerConfig } from "@meshflow/core";
import {
  ClientPool,
  type ClientPoolOptions,
  DEFAULT_CALLS_PER_MINUTE,
  Guard,
  type PoolEvent,
  type ServerFailure,
} from "@meshflow/mcp";
import {
  assertToolsetNames,
  type ClientHello,
  type ClientMode,
  CORE_TOOLSET,
  confirmationTokenTool,
  type OpenedSession,
  type ServedTool,
  type ToolsetConfig,
  ToolsetServer,
  type ToolsetServerEvent,
} from "@meshflow/mcp/server";
import { RunEnvironment } from "@meshflow/runtime/host";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { approvalTools } from "./ownTools/approvalTools.js";
import { diagnoseTool, type ServeInfo } from "./ownTools/diagnoseTool.js";
import { planTools } from "./ownTools/planTools.js";
import { runTools } from "./ownTools/runTools.js";
import { safetyTools, UNGUARDED_TOOLS } from "./ownTools/safetyTools.js";
import { PrdRoot } from "./runs/PrdRoot.js";
import type { RunToolsOptions } from "./runs/RunToolsOptions.js";
import { RunTracker } from "./runs/RunTracker.js";

/** The version the gateway reports in `serverInfo`. */
const GATEWAY_VERSION = "0.1.0";

/** Everything the gateway reports: the toolset server's events and the pool's server lifecycle. */
export type GatewayEvent = ToolsetServerEvent | PoolEvent;

/** Options of {@link Gateway.start}. */
export interface GatewayOptions {
  /** The downstream MCP servers (one toolset each), in config order. */
  servers: ReadonlyMap<string, McpServerConfig>;
  /** Pool settings (stderr log folder, timeouts, transport factory for in-process servers). */
  pool?: Omit<ClientPoolOptions, "onEvent">;
  /** toolset-config.json and its path (for error messages). */
  toolsetConfig?: { config: ToolsetConfig; file: string };
  /** `--toolsets`. */
  toolsets?: readonly string[];
  /** `FLOW_CLIENT_MODE`. */
  modeOverride?: ClientMode;
  /**
   * Guarded calls per minute before the guard locks itself (default `DEFAULT_CALLS_PER_MINUTE`,
   * 6,000); 0 turns the rate limit off (emergency stop still works). The one guard counts the
   * clients' calls and the calls of the runs this gateway starts alike.
   */
  callsPerMinute?: number;
  /** Values never shown by any tool (the HTTP bearer token). */
  secrets?: readonly string[];
  /** Where runs find PRDs, specialists, routing, skills and the store: enables the run tools. */
  runs?: RunToolsOptions;
  /** More tools for the `core` toolset. */
  coreTools?: (gateway: Gateway) => readonly ServedTool[];
  onEvent?: (event: GatewayEvent) => void;
}

/**
 * The gateway MCP server: downstream servers' tools as toolsets, meshflow's own tools in `core`,
 * the meta-tools in `discovery`, every call through metrics → guard → confirmation → validation,
 * one session per client connection. Transports live beside it (`serveStdio`, `serveHttp`).
 *
 * @example
 * const gateway = await Gateway.start({ servers: loadMcpConfig().servers });
 * const running = await serveStdio(gateway);
 * await running.closed;
 * await gateway.close();
 */
export class Gateway {
  readonly hub: ToolsetServer;
  readonly pool: ClientPool;
  /** Servers whose tools could not be discovered at start (their toolsets are unavailable). */
  readonly failures: ServerFailure[];
  /** Runs started through `flow_run_prd` in this process. */
  readonly runs = new RunTracker();
  private serveInfo: ServeInfo = { transport: "in-process", auth: "none" };
  private sessionStats: (() => NonNullable<ServeInfo["sessions"]>) | undefined;
  private runEnvironment: RunEnvironment | undefined;

  private constructor(hub: ToolsetServer, pool: ClientPool, failures: ServerFailure[]) {
    this.hub = hub;
    this.pool = pool;
    this.failures = failures;
  }

  /** Builds the toolsets (discovering every downstream server concurrently) and checks the toolset names in use. */
  static async start(options: GatewayOptions): Promise<Gateway> {
    let hub: ToolsetServer | undefined;
    const pool = new ClientPool(options.servers, {
      clientInfo: { name: "meshflow-gateway", version: GATEWAY_VERSION },
      ...options.pool,
      onEvent: (event) => {
        hub?.handlePoolEvent(event);
        options.onEvent?.(event);
      },
    });
    const perMinute = options.callsPerMinute ?? DEFAULT_CALLS_PER_MINUTE;
    const guard = new Guard({
      ...(perMinute > 0 ? { callsPerMinute: perMinute } : { enabled: false }),
      unguardedTools: UNGUARDED_TOOLS,
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    });
    hub = new ToolsetServer({
      pool,
      guard,
      serverInfo: { name: "meshflow", version: GATEWAY_VERSION },
      ...(options.toolsetConfig ? { config: options.toolsetConfig.config } : {}),
      ...(options.toolsets ? { toolsets: options.toolsets } : {}),
      ...(options.modeOverride ? { modeOverride: options.modeOverride } : {}),
      instructions: {
        preamble:
          "meshflow gateway: run PRDs through specialist agents and call the tools of the configured MCP servers, grouped in toolsets.",
        epilogue:
          "flow_emergency_stop locks every guarded tool at once; flow_diagnose reports servers, guard and metrics and works even then.",
      },
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    });
    const gateway = new Gateway(hub, pool, []);
    const onIssued = options.onEvent ? { onEvent: options.onEvent } : {};
    const runs = options.runs ? runEnvironment(options.runs, guard) : undefined;
    gateway.runEnvironment = runs?.env;
    const core: ServedTool[] = [
      ...(runs
        ? [...runTools({ ...runs, tracker: gateway.runs }), ...approvalTools(runs.env.store), ...planTools(runs, hub)]
        : []),
      diagnoseTool({
        hub,
        serve: () => ({
          ...gateway.serveInfo,
          ...(gateway.sessionStats ? { sessions: gateway.sessionStats() } : {}),
          runsInMemory: gateway.runs.size(),
        }),
        secrets: options.secrets ?? [],
        version: GATEWAY_VERSION,
        activeRuns: () =>
          gateway.runs.active().map((r) => ({
            runId: r.runId,
            prd: r.prd,
            startedAt: r.startedAt,
            ...(r.last ? { lastEvent: r.last.type } : {}),
          })),
      }),
      ...safetyTools(guard, { onStop: () => gateway.runs.abortAll() }),
      confirmationTokenTool(hub.registry, hub.confirmation, onIssued),
      ...(options.coreTools?.(gateway) ?? []),
    ];
    hub.registry.set({
      name: CORE_TOOLSET,
      description:
        "meshflow's own tools: runs, specialists, plan, coverage, diagnose, emergency stop, confirmation tokens.",
      kind: "own",
      alwaysLoaded: true,
      tools: core,
    });
    try {
      gateway.failures.push(...(await hub.discoverServers()));
      const names = hub.registry.names();
      if (options.toolsets?.length) hub.registry.assertKnown(options.toolsets, "--toolsets");
      if (options.toolsetConfig) assertToolsetNames(options.toolsetConfig.config, names, options.toolsetConfig.file);
    } catch (error) {
      await pool.close();
      throw error;
    }
    return gateway;
  }

  /** Records how clients reach the gateway (shown by `flow_diagnose`). */
  setServeInfo(info: ServeInfo, sessionStats?: () => NonNullable<ServeInfo["sessions"]>): void {
    this.serveInfo = info;
    this.sessionStats = sessionStats;
  }

  /** Builds the server of one client connection from its `initialize` request. */
  openSession(hello: ClientHello): OpenedSession {
    return this.hub.openSession(hello);
  }

  /** The server alone, for transports that only need to connect it. */
  serverFor(hello: ClientHello): McpServer {
    return this.openSession(hello).server;
  }

  /** Stops runs in progress (resumable), then closes every session and every downstream server. */
  async close(): Promise<void> {
    this.runs.abortAll();
    await this.runs.settle();
    await this.runEnvironment?.close();
    await this.hub.close();
    await this.pool.close();
  }
}

/** The run tools' environment: the runtime's, with the gateway's one guard, and the PRD root. */
function runEnvironment(
  { root, traceRun, ...options }: RunToolsOptions,
  guard: Guard,
): { env: RunEnvironment; prds: PrdRoot; traceRun?: RunToolsOptions["traceRun"] } {
  // A gateway that never runs a PRD loads no specialist and starts no run server: every part loads on first use.
  return { env: new RunEnvironment({ ...options, guard }), prds: new PrdRoot(root), ...(traceRun ? { traceRun } : {}) };
}
