import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";
import { npmServerEntry, writeMcpConfig } from "./mcpServers.js";
import { FLOW_BIN } from "./runFlow.js";

/** A folder with an `.mcp.json` of the real npm servers: everything, filesystem (on `files/`), memory. */
export interface GatewayFixture {
  dir: string;
  /** The folder server-filesystem may write to. */
  files: string;
  mcpConfig: string;
  cleanup(): void;
}

/** Writes the fixture; `extra` adds more `mcpServers` entries. */
export function gatewayFixture(extra: Record<string, unknown> = {}): GatewayFixture {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-gateway-"));
  const files = join(dir, "files");
  mkdirSync(files);
  const mcpConfig = writeMcpConfig(dir, {
    everything: npmServerEntry("server-everything"),
    filesystem: npmServerEntry("server-filesystem", [files]),
    memory: npmServerEntry("server-memory", [], { MEMORY_FILE_PATH: join(dir, "memory.jsonl") }),
    ...extra,
  });
  return { dir, files, mcpConfig, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** An SDK client connected to a `flow serve`, counting `notifications/tools/list_changed`. */
export interface ServeClient {
  client: Client;
  listChanged(): number;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  names(): Promise<string[]>;
  stderr(): string;
  close(): Promise<void>;
}

function wrap(client: Client, counter: { n: number }, stderr: () => string): ServeClient {
  return {
    client,
    listChanged: () => counter.n,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    names: async () => (await client.listTools()).tools.map((t) => t.name),
    stderr,
    close: () => client.close(),
  };
}

function newClient(name: string, capabilities: Record<string, unknown>): { client: Client; counter: { n: number } } {
  const client = new Client({ name, version: "1.0.0" }, { capabilities });
  const counter = { n: 0 };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    counter.n++;
  });
  return { client, counter };
}

/** Runs `flow serve --stdio …args` in `cwd` as a child process with an SDK client named `clientName` on its stdio. */
export async function serveStdioClient(
  args: readonly string[],
  options: { cwd: string; clientName: string; env?: Record<string, string>; capabilities?: Record<string, unknown> },
): Promise<ServeClient> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [FLOW_BIN, "serve", "--stdio", ...args],
    cwd: options.cwd,
    env: { ...(process.env as Record<string, string>), FLOW_LOG_DIR: join(options.cwd, "logs"), ...options.env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString("utf8");
  });
  const { client, counter } = newClient(options.clientName, options.capabilities ?? {});
  await client.connect(transport);
  return wrap(client, counter, () => stderr);
}

/** A `flow serve --http` child process. */
export interface HttpFlow {
  url: string;
  child: ChildProcess;
  stderr(): string;
  /** An SDK client over Streamable HTTP, with `token` as its bearer token when given. */
  connect(clientName: string, token?: string, capabilities?: Record<string, unknown>): Promise<ServeClient>;
  stop(): Promise<number | null>;
}

/** Starts `flow serve --http 127.0.0.1:0 …args` and waits for its "listening on <url>" line. */
export function startHttpFlow(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<HttpFlow> {
  const child = spawn(process.execPath, [FLOW_BIN, "serve", "--http", "127.0.0.1:0", ...args], {
    cwd: options.cwd,
    env: { ...process.env, FLOW_LOG_DIR: join(options.cwd, "logs"), FLOW_SERVE_TOKEN: undefined, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  const clients: Client[] = [];
  return new Promise((resolve, reject) => {
    child.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString("utf8");
      const url = /listening on (http:\/\/\S+\/mcp)/.exec(stderr)?.[1];
      if (!url) return;
      resolve({
        url,
        child,
        stderr: () => stderr,
        async connect(clientName, token, capabilities = {}) {
          const transport = new StreamableHTTPClientTransport(new URL(url), {
            ...(token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {}),
          });
          const { client, counter } = newClient(clientName, capabilities);
          await client.connect(transport);
          clients.push(client);
          return wrap(client, counter, () => stderr);
        },
        stop: async () => {
          await Promise.allSettled(clients.map((c) => c.close()));
          if (child.exitCode !== null) return child.exitCode;
          const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
          child.kill("SIGTERM");
          return exited;
        },
      });
    });
    child.once("exit", (code) => reject(new Error(`flow serve --http exited ${code} before listening:\n${stderr}`)));
  });
}

/** The text of a result's first content block. */
export const textOf = (r: CallToolResult): string => (r.content[0] as { text?: string } | undefined)?.text ?? "";
/** A refusal's stable code. */
export const codeOf = (r: CallToolResult): unknown => r._meta?.["meshflow/code"];
/** A result's structured content. */
export const dataOf = (r: CallToolResult): Record<string, unknown> =>
  (r.structuredContent ?? {}) as Record<string, unknown>;

/**
 * Calls a destructive tool the way a client that does not read annotations must: refused with
 * `confirmation_required` first, then called again with the token the refusal carries.
 */
export async function confirmedCall(
  s: ServeClient,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  const refused = await s.call(name, args);
  expect(codeOf(refused)).toBe("confirmation_required");
  const token = (dataOf(refused).error as { confirmationToken: string }).confirmationToken;
  return s.call(name, { ...args, confirmation_token: token });
}

/** Waits until `check` holds; notifications arrive asynchronously. Gives up after ~10 s. */
export async function until(check: () => boolean | Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}
