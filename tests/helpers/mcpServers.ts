import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { HttpServerConfig, McpServerConfig, StdioServerConfig } from "@meshflow/core";
import { ClientPool, type ClientPoolOptions } from "@meshflow/mcp";
import { onTestFinished } from "vitest";
import { freePort } from "./redisServer.js";
import { ROOT } from "./runFlow.js";

/** A pool over `configs`, closed (its servers stopped) when the test that made it ends. */
export function testPool(configs: McpServerConfig[], options: ClientPoolOptions = {}): ClientPool {
  const pool = new ClientPool(new Map(configs.map((c) => [c.name, c])), options);
  onTestFinished(() => pool.close());
  return pool;
}

/** The npm MCP servers the tests run, by package name (without the scope). */
export type NpmServer = "server-everything" | "server-filesystem" | "server-memory";

/** The JS entry of an npm MCP server: spawned with `process.execPath` (no `npx`, which is slow). */
function serverEntry(pkg: NpmServer): string {
  return join(ROOT, "node_modules/@modelcontextprotocol", pkg, "dist/index.js");
}

/** A stdio server config as `loadMcpConfig` would produce it, for `node <entry> …args`. */
export function stdioServer(
  name: string,
  pkg: NpmServer,
  args: string[] = [],
  env: Record<string, string> = {},
): StdioServerConfig {
  const all = [serverEntry(pkg), ...args];
  return { name, transport: "stdio", command: process.execPath, args: all, argsAsWritten: all, env, cwd: ROOT };
}

/** A stdio server config for any command (failing servers, silent servers). */
export function commandServer(name: string, command: string, args: string[], env: Record<string, string> = {}) {
  const config: StdioServerConfig = {
    name,
    transport: "stdio",
    command,
    args,
    argsAsWritten: args,
    env,
    cwd: ROOT,
  };
  return config;
}

/** server-everything in Streamable HTTP mode on a loopback port, owned by a test. */
export interface HttpEverything {
  url: string;
  port: number;
  config(name: string): HttpServerConfig;
  /** SIGKILL, waits for exit. */
  kill(): Promise<void>;
  /** Starts it again on the same port. */
  restart(): Promise<void>;
}

function waitForListening(child: ChildProcess, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = "";
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (output.includes(`listening on port ${port}`)) {
        child.stderr?.off("data", onData);
        resolve();
      }
    };
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`server-everything streamableHttp exited ${code}: ${output}`)));
  });
}

/** Starts `server-everything streamableHttp` with `PORT` set to a free port and waits until it listens. */
export async function startHttpEverything(): Promise<HttpEverything> {
  const port = await freePort();
  let child: ChildProcess;
  const start = async () => {
    child = spawn(process.execPath, [serverEntry("server-everything"), "streamableHttp"], {
      env: { ...process.env, PORT: String(port) },
      stdio: ["ignore", "ignore", "pipe"],
    });
    await waitForListening(child, port);
  };
  await start();
  const url = `http://127.0.0.1:${port}/mcp`;
  return {
    url,
    port,
    config: (name) => ({ name, transport: "http", url, urlAsWritten: url, headers: {} }),
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
    restart: start,
  };
}

/** True while a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Writes an `.mcp.json` with the given `mcpServers` into `dir` and returns its path. */
export function writeMcpConfig(dir: string, mcpServers: Record<string, unknown>): string {
  const file = join(dir, ".mcp.json");
  writeFileSync(file, JSON.stringify({ mcpServers }, null, 2));
  return file;
}

/** `.mcp.json` entries for the npm servers, spawned with this Node binary. */
export function npmServerEntry(pkg: NpmServer, args: string[] = [], env: Record<string, string> = {}) {
  return { command: process.execPath, args: [serverEntry(pkg), ...args], env };
}
