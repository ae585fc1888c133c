import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { join } from "node:path";
import { type ErrorCode, type McpServerConfig, MeshflowError, type ToolDescriptor } from "@meshflow/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { McpError, ErrorCode as RpcCode, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { toDescriptor } from "./convert.js";
import { createTransport, killIfAlive } from "./createTransport.js";
import { StderrTail } from "./StderrTail.js";
import { describeEndpoint, scrubText, secretValues } from "./secrets.js";

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
  readonly stderr = new StderrTail();
  readonly secrets: string[];
  /** The connected client, for the call fast path; undefined when not connected. */
  live: Client | undefined;
  private pidOf: () => number | undefined = () => undefined;
  private spawnedPid: () => number | undefined = () => undefined;
  private connecting: Promise<Client> | undefined;
  private deliberateClose = false;
  private tools: ToolDescriptor[] | undefined;
  private listing: Promise<ToolDescriptor[]> | undefined;
  private generation = 0;
  private log: WriteStream | undefined;

  constructor(
    readonly config: McpServerConfig,
    private readonly settings: ConnectionSettings,
  ) {
    this.secrets = secretValues(config);
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
    this.stderr.clear();
    const client = new Client(this.settings.clientInfo, { capabilities: {} });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.invalidateTools();
      this.emit({ type: "tools.changed" });
    });
    client.onclose = () => this.closed(client);
    // Transport errors also reach the pending requests; the client logs the rest to the server's log.
    client.onerror = (error) => this.writeLog(`[meshflow] transport error: ${error.message}\n`);
    try {
      const transport = await this.transport();
      await client.connect(transport, { timeout: this.settings.connectTimeoutMs });
    } catch (error) {
      await client.close().catch(() => undefined);
      // A server that failed to initialize gets no grace period.
      killIfAlive(this.spawnedPid());
      const failure = await this.connectFailure(error);
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
    const opened = createTransport(this.config);
    this.pidOf = opened.pid;
    this.spawnedPid = opened.spawnedPid;
    opened.stderr?.on("data", (chunk: Buffer | string) => {
      const text = typeof chunk === "string" ? chunk : chunk.toString("utf8");
      this.stderr.push(text);
      // Secrets of the config never reach a log, even when a server prints its own environment.
      const safe = scrubText(text, this.secrets);
      this.writeLog(safe);
      this.settings.onStderr?.(this.name, safe);
    });
    return opened.transport;
  }

  private writeLog(text: string): void {
    const dir = this.settings.stderrDir;
    if (!dir) return;
    if (!this.log) {
      mkdirSync(dir, { recursive: true });
      this.log = createWriteStream(join(dir, `${this.name}.log`), { flags: "a" });
      this.log.on("error", () => {
        // A log that cannot be written must not take the server down with it.
        this.log = undefined;
      });
    }
    this.log.write(text);
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
    return scrubText(this.stderr.text(), this.secrets);
  }

  private withTail(message: string): string {
    const tail = this.stderrTail();
    return tail ? `${message}; stderr:\n${indent(tail)}` : message;
  }

  private async connectFailure(error: unknown): Promise<MeshflowError> {
    // Let the last stderr chunks of a dying process arrive before quoting them.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const where = `server "${this.name}" (${describeEndpoint(this.config)})`;
    const details = { server: this.name, endpoint: describeEndpoint(this.config), stderrTail: this.stderrTail() };
    if (error instanceof McpError && error.code === RpcCode.RequestTimeout)
      return new MeshflowError(
        "connect_timeout",
        this.withTail(`${where} did not answer initialize within ${this.settings.connectTimeoutMs} ms`),
        { cause: error, details },
      );
    const reason = error instanceof McpError && error.code === RpcCode.ConnectionClosed ? "exited" : errorText(error);
    return new MeshflowError(
      "server_unreachable",
      this.withTail(`${where} could not be started or reached: ${scrubText(reason, this.secrets)}`),
      { cause: error, details },
    );
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
      const code: ErrorCode =
        error instanceof McpError && error.code === RpcCode.RequestTimeout
          ? "call_timeout"
          : error instanceof McpError && error.code === RpcCode.ConnectionClosed && !this.isClosed()
            ? "server_crashed"
            : "server_unreachable";
      throw new MeshflowError(code, this.withTail(`server "${this.name}": tools/list failed: ${errorText(error)}`), {
        cause: error,
        details: { server: this.name },
      });
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
    const at = `server "${this.name}", tool "${tool}"`;
    if (signal?.aborted) return { code: "aborted", message: `${at}: the call was aborted` };
    if (error instanceof McpError) {
      if (error.code === RpcCode.RequestTimeout)
        return { code: "call_timeout", message: `${at}: no answer within ${timeoutMs} ms (the call was cancelled)` };
      if (error.code === RpcCode.ConnectionClosed) {
        if (this.state === "closed")
          return { code: "aborted", message: `${at}: the client pool was closed during the call` };
        return {
          code: "server_crashed",
          message: this.withTail(`${at}: the server exited during the call; the next call restarts it`),
        };
      }
      return { code: "tool_error", message: `${at}: ${scrubText(error.message, this.secrets)}` };
    }
    if (error instanceof Error && error.name === "ZodError")
      return { code: "tool_error", message: `${at}: the server's answer is not a valid tools/call result` };
    // The transport itself failed (HTTP server gone, pipe closed): reconnect on the next call.
    this.dropLive();
    return {
      code: "server_unreachable",
      message: this.withTail(`${at}: ${scrubText(errorText(error), this.secrets)}`),
    };
  }

  async close(): Promise<void> {
    this.state = "closed";
    this.deliberateClose = true;
    const pending = this.connecting?.catch(() => undefined);
    const client = this.live;
    this.live = undefined;
    await Promise.all([client?.close().catch(() => undefined), pending]);
    killIfAlive(this.spawnedPid());
    await new Promise<void>((resolve) => (this.log ? this.log.end(resolve) : resolve()));
    this.log = undefined;
  }

  private emit(event: PoolEventBody): void {
    this.settings.onEvent?.({ time: now(), server: this.name, ...event });
  }
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error && !error.message.includes(cause.message)
    ? `${error.message} (${cause.message})`
    : error.message;
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");
}
