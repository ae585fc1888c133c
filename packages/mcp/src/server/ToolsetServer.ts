import { MeshflowError, type ToolDescriptor } from "@meshflow/core";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ClientPool, PoolEvent, ServerFailure } from "../ClientPool.js";
import { ConfirmationGate } from "../ConfirmationGate.js";
import { describeFromPool } from "../createToolChain.js";
import { Guard } from "../Guard.js";
import { MetricsCollector } from "../MetricsCollector.js";
import { SchemaValidator } from "../SchemaValidator.js";
import type { DescribeTool, MiddlewareEvent } from "../types.js";
import {
  type ClientHello,
  type ClientMode,
  clientNameMatches,
  type DetectedClient,
  detectClient,
} from "./clientMode.js";
import { discoveryTools } from "./metaTools.js";
import { type EnableOutcome, proxiedTool } from "./ServedTool.js";
import { serverInstructions } from "./serverInstructions.js";
import { ALL_TOOLSETS, type ToolsetConfig } from "./ToolsetConfig.js";
import { DISCOVERY_TOOLSET, ToolsetRegistry, type ToolsetSelection } from "./ToolsetRegistry.js";
import { ToolsetSession } from "./ToolsetSession.js";

/** What a toolset server reports besides tool results. */
export type ToolsetServerEvent =
  | MiddlewareEvent
  | {
      type: "session.opened";
      time: string;
      client: DetectedClient;
      toolsets: string[];
      toolCount: number;
      source: ToolsetSelection["source"];
      warnings: string[];
    }
  | { type: "toolset.enabled"; time: string; client: string; outcome: EnableOutcome }
  | { type: "toolset.discovered"; time: string; toolset: string; toolCount: number; error?: string };

/** Options of {@link ToolsetServer}. */
export interface ToolsetServerOptions {
  pool: ClientPool;
  serverInfo: { name: string; version: string };
  registry?: ToolsetRegistry;
  metrics?: MetricsCollector;
  guard?: Guard;
  confirmation?: ConfirmationGate;
  validator?: SchemaValidator;
  /** toolset-config.json, already validated. */
  config?: ToolsetConfig;
  /** `--toolsets`: wins over the config for every client. */
  toolsets?: readonly string[];
  /** `FLOW_CLIENT_MODE`. */
  modeOverride?: ClientMode;
  /** Lines around the mode-specific instructions. */
  instructions?: { preamble?: string; epilogue?: string };
  onEvent?: (event: ToolsetServerEvent) => void;
}

/** One client connection: its server (connect it to the transport) and its session. */
export interface OpenedSession {
  server: McpServer;
  session: ToolsetSession;
  selection: ToolsetSelection;
}

const now = () => new Date().toISOString();

/**
 * The transport-independent core of an MCP server of toolsets: a registry with the `discovery`
 * toolset and one toolset per downstream server, the server-wide guard, metrics and confirmation
 * gate, and {@link openSession}, which builds the `McpServer` of one connection from its
 * `initialize` request (mode, toolsets, descriptions and instructions follow the client).
 *
 * @example
 * const hub = new ToolsetServer({ pool, serverInfo: { name: "meshflow", version: "0.1.0" } });
 * await hub.discoverServers();
 * const { server } = hub.openSession(initializeRequest.params);
 * await server.connect(transport);
 */
export class ToolsetServer {
  readonly registry: ToolsetRegistry;
  readonly metrics: MetricsCollector;
  readonly guard: Guard;
  readonly confirmation: ConfirmationGate;
  readonly validator: SchemaValidator;
  readonly pool: ClientPool;
  private readonly options: ToolsetServerOptions;
  private readonly describe: DescribeTool;
  private readonly open = new Set<OpenedSession>();

  constructor(options: ToolsetServerOptions) {
    this.options = options;
    this.pool = options.pool;
    this.registry =
      options.registry ??
      new ToolsetRegistry(
        options.config?.maxDefaultTools !== undefined ? { maxDefaultTools: options.config.maxDefaultTools } : {},
      );
    this.metrics = options.metrics ?? new MetricsCollector();
    this.guard = options.guard ?? new Guard();
    this.confirmation = options.confirmation ?? new ConfirmationGate();
    this.validator = options.validator ?? new SchemaValidator();
    const fromPool = describeFromPool(this.pool);
    this.describe = (name) => this.registry.toolByChainName(name)?.descriptor ?? fromPool(name);
    this.registry.set({
      name: DISCOVERY_TOOLSET,
      description: "Meta-tools: list, describe, search and enable toolsets.",
      kind: "own",
      alwaysLoaded: true,
      tools: discoveryTools(this.registry),
    });
  }

  private emit(event: ToolsetServerEvent): void {
    this.options.onEvent?.(event);
  }

  /**
   * Discovers the downstream servers' tools (default: every server of the pool) and makes one
   * toolset of each, in config order. A server that fails becomes an unavailable toolset with the
   * reason, which `enable_toolset` retries; the failures are returned.
   */
  async discoverServers(servers: readonly string[] = this.pool.servers): Promise<ServerFailure[]> {
    const reserved = servers.filter((s) => s === ALL_TOOLSETS || this.registry.get(s)?.kind === "own");
    if (reserved.length)
      throw new MeshflowError(
        "mcp_config_invalid",
        `MCP server name${reserved.length > 1 ? "s" : ""} ${reserved.map((r) => `"${r}"`).join(", ")} clash with toolset names of the server (${[
          ALL_TOOLSETS,
          ...this.registry
            .all()
            .filter((t) => t.kind === "own")
            .map((t) => t.name),
        ].join(", ")}); rename ${reserved.length > 1 ? "them" : "it"} in the MCP config`,
      );
    const failures: ServerFailure[] = [];
    // Placeholders first, so toolsets keep config order whichever server answers first.
    for (const server of servers)
      if (!this.registry.get(server))
        this.registry.set({ name: server, description: "", kind: "server", alwaysLoaded: false, tools: [] });
    const found = await Promise.all(
      servers.map(async (server) => ({ server, outcome: await this.pool.discover([server]) })),
    );
    for (const { server, outcome } of found) {
      const failure = outcome.failures[0];
      if (failure) failures.push(failure);
      this.setServerToolset(server, outcome.tools, failure);
    }
    return failures;
  }

  /** Rediscovers one server's toolset (its tools changed, or it was unavailable). */
  async refresh(server: string): Promise<void> {
    if (!this.pool.servers.includes(server)) return;
    const { tools, failures } = await this.pool.discover([server]);
    this.setServerToolset(server, tools, failures[0]);
  }

  /** Feed the pool's events here: a server whose tool list changed is rediscovered. */
  handlePoolEvent(event: PoolEvent): void {
    if (event.type === "tools.changed") void this.refresh(event.server).catch(() => undefined);
  }

  private setServerToolset(server: string, tools: readonly ToolDescriptor[], failure: ServerFailure | undefined): void {
    const config = this.pool.config(server);
    const where = config?.transport === "http" ? "Streamable HTTP" : "stdio";
    const unavailable = failure ? { code: failure.code, message: failure.message } : undefined;
    this.registry.set({
      name: server,
      description: `Tools of the MCP server "${server}" (${where}), served as ${server}__<tool>.`,
      kind: "server",
      alwaysLoaded: false,
      tools: tools.map(proxiedTool),
      ...(unavailable ? { unavailable } : {}),
    });
    this.emit({
      type: "toolset.discovered",
      time: now(),
      toolset: server,
      toolCount: tools.length,
      ...(failure ? { error: `${failure.code}: ${failure.message}` } : {}),
    });
  }

  /** The toolsets a client starts with: `--toolsets`, else its config override, else the config default, else the built-in one. */
  selectionFor(client: DetectedClient): ToolsetSelection {
    const config = this.options.config;
    let clientOverride: readonly string[] | undefined;
    if (config?.clientOverrides) {
      const hit = Object.entries(config.clientOverrides)
        .map(([key, names]) => [key.toLowerCase(), names] as const)
        .filter(([key]) => clientNameMatches(client.name, key))
        .sort((a, b) => b[0].length - a[0].length)[0];
      clientOverride = hit?.[1];
    }
    return this.registry.select({
      flag: this.options.toolsets,
      clientOverride,
      configDefault: config?.defaultToolsets,
    });
  }

  /** Detects the client of an `initialize` request and builds its session's server (not yet connected). */
  openSession(hello: ClientHello): OpenedSession {
    const client = detectClient(hello, {
      ...(this.options.modeOverride ? { modeOverride: this.options.modeOverride } : {}),
      ...(this.options.config?.clients ? { profiles: this.options.config.clients } : {}),
    });
    const selection = this.selectionFor(client);
    const server = new McpServer(this.options.serverInfo, {
      capabilities: { tools: { listChanged: true } },
      instructions: serverInstructions({
        client,
        registry: this.registry,
        loaded: selection.toolsets,
        ...this.options.instructions,
      }),
      // Enabling a toolset enables each of its tools: the client hears one list_changed, not one per tool.
      debouncedNotificationMethods: ["notifications/tools/list_changed"],
    });
    const session = new ToolsetSession({
      server,
      registry: this.registry,
      client,
      toolsets: selection.toolsets,
      chain: {
        pool: this.pool,
        metrics: this.metrics,
        guard: this.guard,
        confirmation: this.confirmation,
        validator: this.validator,
        describe: this.describe,
        ...(this.options.onEvent ? { onEvent: this.options.onEvent } : {}),
      },
      refresh: (name) => this.refresh(name),
      onEnable: (outcome, c) => this.emit({ type: "toolset.enabled", time: now(), client: c.name, outcome }),
    });
    const opened: OpenedSession = { server, session, selection };
    this.open.add(opened);
    const previous = server.server.onclose;
    server.server.onclose = () => {
      previous?.();
      session.close();
      this.open.delete(opened);
    };
    this.emit({
      type: "session.opened",
      time: now(),
      client,
      toolsets: selection.toolsets,
      toolCount: selection.toolCount,
      source: selection.source,
      warnings: selection.warnings,
    });
    return opened;
  }

  /** The sessions open now. */
  sessions(): OpenedSession[] {
    return [...this.open];
  }

  /** Closes every open session's server. The pool belongs to the caller. */
  async close(): Promise<void> {
    // A transport that is already gone cannot fail the shutdown of the others.
    await Promise.allSettled([...this.open].map((s) => s.server.close()));
    this.open.clear();
  }
}
