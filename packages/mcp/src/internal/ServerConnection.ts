import { type ErrorCode, type McpServerConfig, MeshflowError, type ToolDescriptor } from "@meshflow/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { toDescriptor } from "./convert.js";
import { createTransport, killIfAlive } from "./createTransport.js";
import { callFailure, connectFailure, type FailureContext, listFailure } from "./failures.js";
import type { OversizedMessage } from "./JsonRpcLineReader.js";
import { OversizedMessageError } from "./oversized.js";
import { ServerLog } from "./ServerLog.js";
import { describeEndpoint, secretValues } from "./secrets.js";

/** Where a server connection stands. */
export type ConnectionState = "idle" | "connecting" | "connected" | "failed" | "crashed" | "closed";

/** What happened to a server, without when and which. */
type PoolEventBody =
  | { type: "server.connected"; pid?: number; version?: string }
  | { type: "server.crashed"; pid?: number; message: string }
  | { type: "server.failed"; code: ErrorCode; message: string }
  | { type: "tools.changed" };

/** Lifecycle events of the pool's servers. */
export type PoolEvent = { time: string; server: string } & PoolEventBody;

/** Builds the transport of a server; return undefined to use the default (stdio child process or HTTP). */
export type TransportFactory = (config: McpServerConfig) => Transport | undefined | Promise<Transport | undefined>;

/** What every connection shares with its pool. */
export interface ConnectionSettings {
  connectTimeoutMs: number;
  callTimeoutMs: number;
  clientInfo: { name: string; version: string };
  transportFactory?: TransportFactory;
  stderrDir?: string;
  onStderr?: (server: string, text: string) => void;
  onEvent?: (event: PoolEvent) => void;
  /** Called with a server's tools when its cache is filled, and with undefined when it is invalidated. */
  onTools(server: string, tools: readonly ToolDescriptor[] | undefined): void;
}

/** Servers return at most this many pages of tools; more means a server that never stops paginating. */
const MAX_TOOL_PAGES = 1000;

const now = () => new Date().toISOString();

/** One configured server: its client, connected lazily, reconnected after a crash, and its tool cache. */
export class ServerConnection {
  state: ConnectionState = "idle";
  lastError: MeshflowError | undefined;
  connects = 0;
  crashes = 0;
  readonly secrets: string[];
  private readonly log: ServerLog;
  /** The connected client, for the call fast path; undefined when not connected. */
  live: Client | undefined;
  private pidOf: () => number | undefined = () => undefined;
  private spawnedPid: () => number | undefined = () => undefined;
  private connecting: Promise<Client> | undefined;
  private deliberateClose = false;
  private tools: ToolDescriptor[] | undefined;
  private listing: Promise<ToolDescriptor[]> | undefined;
  private generation = 0;
  /** A message over the limit that named no call closed the current process (its calls fail with it). */
  private oversized: OversizedMessage | undefined;

  constructor(
    readonly config: McpServerConfig,
    private readonly settings: ConnectionSettings,
  ) {
    this.secrets = secretValues(config);
    this.log = new ServerLog(config.name, this.secrets, {
      ...(settings.stderrDir ? { dir: settings.stderrDir } : {}),
      ...(settings.onStderr ? { onStderr: settings.onStderr } : {}),
    });
  }

  get name(): string {
    return this.config.name;
  }

  /** True once the pool closed this connection (state changes while a connect is awaited). */
  private isClosed(): boolean {
    return this.state === "closed";
  }

  /** The process id of a running stdio server. */
  pid(): number | undefined {
    return this.live ? this.pidOf() : undefined;
  }

  /** The connected client, connecting (or reconnecting) first when needed. Throws a `MeshflowError`. */
  client(): Promise<Client> {
    if (this.live) return Promise.resolve(this.live);
    if (this.state === "closed")
      return Promise.reject(
        new MeshflowError("server_unreachable", `server "${this.name}": the client pool is closed`),
      );
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(): Promise<Client> {
    this.state = "connecting";
    // The tail describes the current process: a new attempt starts a new one.
    this.log.restart();
    this.oversized = undefined;
    const client = new Client(this.settings.clientInfo, { capabilities: {} });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.invalidateTools();
      this.emit({ type: "tools.changed" });
    });
    client.onclose = () => this.closed(client);
    // Transport errors also reach the pending requests; the client logs the rest to the server's log.
    client.onerror = (error) => {
      if (error instanceof OversizedMessageError) this.oversized = error.oversized;
      this.log.note(`transport error: ${error.message}`);
    };
    try {
      const transport = await this.transport();
      await client.connect(transport, { timeout: this.settings.connectTimeoutMs });
    } catch (error) {
      await client.close().catch(() => undefined);
      // A server that failed to initialize gets no grace period.
      killIfAlive(this.spawnedPid());
      // Let the last stderr chunks of a dying process arrive before quoting them.
      await new Promise((resolve) => setTimeout(resolve, 20));
      const failure = connectFailure(error, this.failureContext(), this.settings.connectTimeoutMs);
      if (!this.isClosed()) this.state = "failed";
      this.lastError = failure;
      this.emit({ type: "server.failed", code: failure.code, message: failure.message });
      throw failure;
    }
    if (this.isClosed()) {
      await client.close().catch(() => undefined);
      killIfAlive(this.spawnedPid());
      throw new MeshflowError("server_unreachable", `server "${this.name}": the client pool is closed`);
    }
    this.live = client;
    this.state = "connected";
    this.lastError = undefined;
    this.connects++;
    const pid = this.pidOf();
    const version = client.getServerVersion()?.version;
    this.emit({
      type: "server.connected",
      ...(pid !== undefined ? { pid } : {}),
      ...(version !== undefined ? { version } : {}),
    });
    return client;
  }

  private async transport(): Promise<Transport> {
    const injected = await this.settings.transportFactory?.(this.config);
    if (injected) {
      this.pidOf = () => undefined;
      this.spawnedPid = () => undefined;
      return injected;
    }
    const opened = await createTransport(this.config);
    this.pidOf = opened.pid;
    this.spawnedPid = opened.spawnedPid;
    opened.stderr?.on("data", (chunk: Buffer | string) =>
      this.log.stderr(typeof chunk === "string" ? chunk : chunk.toString("utf8")),
    );
    return opened.transport;
  }

  private closed(client: Client): void {
    if (this.live !== client) return;
    const pid = this.pidOf();
    this.live = undefined;
    if (this.deliberateClose || this.state === "closed") return;
    this.state = "crashed";
    this.crashes++;
    this.invalidateTools();
    const message = `server "${this.name}" (${describeEndpoint(this.config)}) closed the connection`;
    this.lastError = new MeshflowError("server_crashed", message);
    this.emit({ type: "server.crashed", message, ...(pid !== undefined ? { pid } : {}) });
  }

  /** The stderr tail, scrubbed of the config's secret values, for error messages. */
  stderrTail(): string {
    return this.log.tailText();
  }

  private failureContext(): FailureContext {
    return {
      server: this.name,
      endpoint: describeEndpoint(this.config),
      secrets: this.secrets,
      tail: this.stderrTail(),
      closedByPool: this.isClosed(),
      oversized: this.oversized,
      process: this.config.transport === "stdio",
    };
  }

  /** Drops a connection whose transport failed without closing (HTTP), so the next call reconnects. */
  dropLive(): void {
    const client = this.live;
    if (!client) return;
    this.live = undefined;
    this.state = "failed";
    this.invalidateTools();
    void client.close().catch(() => undefined);
  }

  /** The server's tools: `tools/list`, every page, cached until `notifications/tools/list_changed`. */
  async listTools(): Promise<ToolDescriptor[]> {
    if (this.tools) return this.tools;
    this.listing ??= this.fetchTools().finally(() => {
      this.listing = undefined;
    });
    return this.listing;
  }

  private async fetchTools(): Promise<ToolDescriptor[]> {
    const client = await this.client();
    const generation = this.generation;
    const tools: ToolDescriptor[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    try {
      for (let page = 0; page < MAX_TOOL_PAGES; page++) {
        const result = await client.listTools(cursor === undefined ? undefined : { cursor }, {
          timeout: this.settings.callTimeoutMs,
        });
        for (const tool of result.tools) {
          if (seen.has(tool.name)) continue;
          seen.add(tool.name);
          tools.push(toDescriptor(this.name, tool));
        }
        cursor = result.nextCursor;
        if (!cursor) break;
      }
    } catch (error) {
      throw listFailure(error, this.failureContext());
    }
    // A list_changed that arrived while paging makes this answer stale: hand it out, but do not cache it.
    if (generation === this.generation) {
      this.tools = tools;
      this.settings.onTools(this.name, tools);
    }
    return tools;
  }

  /** The cached tools, if any (no I/O). */
  cachedTools(): readonly ToolDescriptor[] | undefined {
    return this.tools;
  }

  invalidateTools(): void {
    this.generation++;
    if (this.tools) {
      this.tools = undefined;
      this.settings.onTools(this.name, undefined);
    }
  }

  /** Turns a failed `tools/call` into a stable code and a message that names server, tool and cause. */
  callFailure(
    error: unknown,
    tool: string,
    signal: AbortSignal | undefined,
    timeoutMs: number,
  ): { code: ErrorCode; message: string } {
    const { code, message, transportFailed } = callFailure(error, this.failureContext(), tool, signal, timeoutMs);
    // A transport that failed without closing (HTTP server gone): reconnect on the next call.
    if (transportFailed) this.dropLive();
    return { code, message };
  }

  async close(): Promise<void> {
    this.state = "closed";
    this.deliberateClose = true;
    const pending = this.connecting?.catch(() => undefined);
    const client = this.live;
    this.live = undefined;
    await Promise.all([client?.close().catch(() => undefined), pending]);
    killIfAlive(this.spawnedPid());
    await this.log.close();
  }

  private emit(event: PoolEventBody): void {
    this.settings.onEvent?.({ time: now(), server: this.name, ...event });
  }
}
