import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { StdioServerConfig } from "@meshflow/core";
import type { TestServer } from "@meshflow/runtime/testing";
import { createWorkspaceServer } from "@meshflow/workspace-server";

const require = createRequire(import.meta.url);

/** A temporary folder of files a specialist test works on. */
export interface FixtureFiles {
  /** The folder (a real path). */
  root: string;
  /** A file beside the folder for server-memory's graph (outside the workspace the specialists scan). */
  memoryFile: string;
  write(rel: string, content: string | Buffer): void;
  cleanup(): void;
}

/** Creates a temporary folder holding `files` (root-relative path → content). */
export function fixtureFiles(files: Record<string, string | Buffer> = {}): FixtureFiles {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "meshflow-agent-")));
  const write = (rel: string, content: string | Buffer) => {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), content);
  };
  for (const [rel, content] of Object.entries(files)) write(rel, content);
  const memoryFile = `${root}-memory.jsonl`;
  const cleanup = () => {
    rmSync(root, { recursive: true, force: true });
    rmSync(memoryFile, { force: true });
  };
  return { root, memoryFile, write, cleanup };
}

function stdio(name: string, pkg: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const all = [require.resolve(`${pkg}/dist/index.js`), ...args];
  const config: StdioServerConfig = {
    name,
    transport: "stdio",
    command: process.execPath,
    args: all,
    argsAsWritten: all,
    env,
    cwd,
  };
  return config;
}

/** The real `server-filesystem` over stdio, allowed `root` only (relative paths resolve against it). */
export function filesystemServer(root: string): StdioServerConfig {
  return stdio("filesystem", "@modelcontextprotocol/server-filesystem", [root], root);
}

/** The real `server-memory` over stdio, its graph in `file`. */
export function memoryServer(file: string): StdioServerConfig {
  return stdio("memory", "@modelcontextprotocol/server-memory", [], dirname(file), { MEMORY_FILE_PATH: file });
}

/** meshflow's workspace server for `root`, in process (over an InMemoryTransport pair). */
export function workspaceServer(root: string, allow: string[] = []): TestServer {
  return () => createWorkspaceServer({ root, allow, timeoutMs: 60_000 });
}
