import {
  configSecrets,
  didYouMean,
  type ErrorCode,
  isMeshflowError,
  type McpServerConfig,
  MeshflowError,
  parseQualifiedName,
  scrubValue,
  type ToolDescriptor,
  type ToolResult,
  toMeshflowError,
} from "@meshflow/core";
import { toToolResult } from "./internal/convert.js";
import {
  type ConnectionState,
  type PoolEvent,
  ServerConnection,
  type TransportFactory,
} from "./internal/ServerConnection.js";
import { describeEndpoint } from "./internal/secrets.js";
import { refusal } from "./refusal.js";

export type { ConnectionState, PoolEvent, TransportFactory };

/** Default time a server gets to start and answer `initialize`. */
const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** Default time a `tools/call` or `tools/list` may take before it is cancelled. */
const DEFAULT_CALL_TIMEOUT_MS = 60_000;

/** Options of {@link ClientPool}. */
export interface ClientPoolOptions {
  /** Time for a server to start and answer `initialize` (default 30 s). */
  connectTimeoutMs?: number;
  /** Time for one `tools/call` or `tools/list` (default 60 s); a call may override it. */
  callTimeoutMs?: number;
  /** Appends each stdio server's stderr to `<dir>/<server>.log`. Stderr never reaches the terminal. */
  stderrDir?: string;
  /** Receives each stdio server's stderr as it arrives. */
  onStderr?: (server: string, text: string) => void;
  /** How meshflow introduces itself in `initialize`. */
  clientInfo?: { name: string; version: string };
  /** Supplies transports (for example `InMemoryTransport` servers in tests and benches). */
  transportFactory?: TransportFactory;
  /** Server lifecycle events: connected, crashed, failed, tools changed. */
  onEvent?: (event: PoolEvent) => void;
}

/** A server whose tools could not be discovered, and why. */
export interface ServerFailure {
  server: string;
  code: ErrorCode;
  message: string;
  /** How the server is started or reached, as the config writes it (never expanded secrets). */
  endpoint: string;
  /** The last lines the server wrote to stderr, secrets scrubbed. */
  stderrTail: string;
}

/** What the pool knows about one server right now (no I/O). */
export interface ServerStatus {
  server: string;
  transport: McpServerConfig["transport"];
  endpoint: string;
  state: ConnectionState;
  pid?: number;
  serverInfo?: { name: string; version: string };
  toolCount?: number;
  connects: number;
  crashes: number;
  lastError?: { code: ErrorCode; message: string };
}

/** Options of one {@link ClientPool.callTool}. */
export interface PoolCallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Asked right before the request is sent (after connecting): a result refuses the call instead. */
  beforeSend?: () => ToolResult | undefined;
}

/**
 * One MCP client per configured server, shared by every caller: connected on first use, reconnected
 * after a crash, tools discovered with paginated `tools/list` and cached until `list_changed`.
 *
 * @example
 * const pool = new ClientPool(loadMcpConfig().servers);
 * const { tools, failures } = await pool.discover();
 * const result = await pool.callTool("everything", "echo", { message: "hi" });
 * await pool.close();
 */
export class ClientPool {
  private readonly connections = new Map<string, ServerConnection>();
  /** Every cached tool by qualified name: the chain's synchronous lookup. */
  private readonly index = new Map<string, ToolDescriptor>();
  private readonly callTimeoutMs: number;
  /** Shared by every call without a signal or its own timeout: no options object per call. */
  private readonly defaultRequestOptions: { timeout: number };
  /**
   * The secret values of every configured server (env, headers, `${VAR}` expansions), longest first.
   * Every result and error a call returns is masked with them here, where it enters meshflow, so no
   * event, evidence, snapshot, memory, report or log downstream can hold one, whichever server echoed it.
   */
  readonly secrets: readonly string[];

  constructor(servers: ReadonlyMap<string, McpServerConfig>, options: ClientPoolOptions = {}) {
    this.callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.defaultRequestOptions = { timeout: this.callTimeoutMs };
    this.secrets = configSecrets(servers.values());
    const settings = {
      connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      callTimeoutMs: this.callTimeoutMs,
      clientInfo: options.clientInfo ?? { name: "meshflow", version: "0.1.0" },
      ...(options.transportFactory ? { transportFactory: options.transportFactory } : {}),
      ...(options.stderrDir ? { stderrDir: options.stderrDir } : {}),
      ...(options.onStderr ? { onStderr: options.onStderr } : {}),
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
      onTools: (server: string, tools: readonly ToolDescriptor[] | undefined) => this.reindex(server, tools),
    };
    for (const [name, config] of servers) this.connections.set(name, new ServerConnection(config, settings));
  }

  /** The configured server names, in config order. */
  get servers(): string[] {
    return [...this.connections.keys()];
  }

  /** The config of a server, or undefined when it is not configured. */
  config(server: string): McpServerConfig | undefined {
    return this.connections.get(server)?.config;
  }

  private connection(server: string): ServerConnection {
    const connection = this.connections.get(server);
    if (connection) return connection;
    throw this.unknownServer(server);
  }

  private unknownServer(server: string): MeshflowError {
    const known = this.servers;
    return new MeshflowError(
      "server_unknown",
      `unknown MCP server "${server}"${didYouMean(server, known)}; configured: ${known.join(", ") || "none"}`,
      { details: { server, candidates: known } },
    );
  }

  private reindex(server: string, tools: readonly ToolDescriptor[] | undefined): void {
    for (const [name, tool] of this.index) if (tool.server === server) this.index.delete(name);
    for (const tool of tools ?? []) this.index.set(tool.qualifiedName, tool);
  }

  /** A server's tools (paginated `tools/list`, cached). Throws `server_unknown`, `server_unreachable`, `connect_timeout`. */
  listTools(server: string): Promise<ToolDescriptor[]> {
    try {
      return this.connection(server).listTools();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The tools of several servers (default: all), concurrently; a server that fails is reported, never fatal. */
  async discover(
    servers: readonly string[] = this.servers,
  ): Promise<{ tools: ToolDescriptor[]; failures: ServerFailure[] }> {
    const outcomes = await Promise.all(
      servers.map(async (server) => {
        try {
          return { tools: await this.listTools(server) };
        } catch (error) {
          return { failure: this.failure(server, error) };
        }
      }),
    );
    const tools: ToolDescriptor[] = [];
    const failures: ServerFailure[] = [];
    for (const outcome of outcomes) {
      if (outcome.tools) tools.push(...outcome.tools);
      if (outcome.failure) failures.push(outcome.failure);
    }
    return { tools, failures };
  }

  private failure(server: string, error: unknown): ServerFailure {
    const failure = toMeshflowError(error, "server_unreachable");
    const connection = this.connections.get(server);
    return {
      server,
      code: failure.code,
      message: failure.message,
      endpoint: connection ? describeEndpoint(connection.config) : "",
      stderrTail: connection?.stderrTail() ?? "",
    };
  }

  /** A cached tool by qualified name, without I/O (the hot path of the call chain). */
  cachedTool(qualifiedName: string): ToolDescriptor | undefined {
    return this.index.get(qualifiedName);
  }

  /**
   * A tool by qualified name, discovering its server's tools when needed. Throws `tool_not_found`
   * (with `details.candidates`) for a name no configured server has, or the server's connection error.
   */
  async getTool(qualifiedName: string): Promise<ToolDescriptor> {
    const cached = this.index.get(qualifiedName);
    if (cached) return cached;
    const parsed = parseQualifiedName(qualifiedName);
    const notFound = (message: string, candidates: string[]) =>
      new MeshflowError("tool_not_found", message, { details: { tool: qualifiedName, candidates } });
    if (!parsed) {
      // Error path only: every server's tools are worth a connect here, to suggest the right one.
      const known = (await this.discover()).tools.map((t) => t.qualifiedName);
      throw notFound(
        `"${qualifiedName}" is not a qualified tool name <server>__<tool>${didYouMean(qualifiedName, known)}`,
        known,
      );
    }
    if (!this.connections.has(parsed.server)) {
      const known = this.servers;
      throw notFound(
        `unknown MCP server "${parsed.server}" in tool name "${qualifiedName}"${didYouMean(parsed.server, known)}; configured: ${known.join(", ") || "none"}`,
        known,
      );
    }
    const tools = await this.listTools(parsed.server);
    const found = tools.find((t) => t.name === parsed.tool);
    if (found) return found;
    const names = tools.map((t) => t.qualifiedName);
    throw notFound(`server "${parsed.server}" has no tool "${parsed.tool}"${didYouMean(qualifiedName, names)}`, names);
  }

  /**
   * Calls a tool on a server. Never throws: a crash, timeout, unreachable server or protocol error
   * comes back as a result with `isError` and a `code` (`server_crashed`, `call_timeout`,
   * `server_unreachable`, `server_unknown`, `tool_error`, `aborted`).
   */
  async callTool(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: PoolCallOptions = {},
  ): Promise<ToolResult> {
    const connection = this.connections.get(server);
    if (!connection) {
      const error = this.unknownServer(server);
      return refusal(error.code, error.message);
    }
    let client = connection.live;
    if (!client) {
      try {
        client = await connection.client();
      } catch (error) {
        const failure = isMeshflowError(error) ? error : toMeshflowError(error, "server_unreachable");
        return refusal(failure.code, failure.message);
      }
    }
    const refused = options.beforeSend?.();
    if (refused) return refused;
    const timeoutMs = options.timeoutMs ?? this.callTimeoutMs;
    const requestOptions =
      options.signal === undefined && options.timeoutMs === undefined
        ? this.defaultRequestOptions
        : { timeout: timeoutMs, ...(options.signal ? { signal: options.signal } : {}) };
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, requestOptions);
      return scrubValue(toToolResult(result), this.secrets);
    } catch (error) {
      const { code, message } = connection.callFailure(error, tool, options.signal, timeoutMs);
      return refusal(code, scrubValue(message, this.secrets));
    }
  }

  /** What the pool knows about each server (default: all), without I/O. */
  status(servers: readonly string[] = this.servers): ServerStatus[] {
    return servers.map((server) => {
      const c = this.connection(server);
      const status: ServerStatus = {
        server,
        transport: c.config.transport,
        endpoint: describeEndpoint(c.config),
        state: c.state,
        connects: c.connects,
        crashes: c.crashes,
      };
      const pid = c.pid();
      if (pid !== undefined) status.pid = pid;
      const info = c.live?.getServerVersion();
      if (info) status.serverInfo = { name: info.name, version: info.version };
      const tools = c.cachedTools();
      if (tools) status.toolCount = tools.length;
      if (c.lastError) status.lastError = { code: c.lastError.code, message: c.lastError.message };
      return status;
    });
  }

  /** Closes every client and shuts every server process down; later calls are refused. */
  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.close()));
    this.index.clear();
  }
}
