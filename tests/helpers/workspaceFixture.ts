import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  createWorkspaceServer,
  type WorkspaceErrorContent,
  type WorkspaceServerOptions,
  type WorkspaceToolResults,
} from "@meshflow/workspace-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";

/** A temporary workspace: a git repository with committed, modified, staged and untracked files. */
export interface FixtureWorkspace {
  /** The workspace root (a real path). */
  root: string;
  /** A folder beside the root holding `secret.txt`, the target of the escaping symlinks. */
  outside: string;
  write(rel: string, content: string | Buffer): void;
  git(...args: string[]): string;
  cleanup(): void;
}

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "Fixture",
  GIT_AUTHOR_EMAIL: "fixture@example.test",
  GIT_COMMITTER_NAME: "Fixture",
  GIT_COMMITTER_EMAIL: "fixture@example.test",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
};

/**
 * Builds the fixture: `src/app.ts` (3 lines), `src/util.ts`, `README.md`, `data/blob.bin` (binary),
 * `.gitignore` (ignores `*.log` and `build/`), `node_modules/dep/index.js`, an ignored `debug.log` and
 * `build/out.js`, symlinks `escape-file` → outside/secret.txt and `escape-dir` → outside, and an inside
 * symlink `link-to-readme` → README.md. Committed once; then `src/app.ts` modified, `src/util.ts` staged,
 * `notes.txt` untracked.
 */
export function makeWorkspace(options: { git?: boolean } = {}): FixtureWorkspace {
  const base = mkdtempSync(join(tmpdir(), "meshflow-ws-"));
  const root = join(base, "root");
  const outside = join(base, "outside");
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "TOP SECRET outside the root\n");
  const write = (rel: string, content: string | Buffer): void => {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), content);
  };
  const git = (...args: string[]): string => execFileSync("git", args, { cwd: root, env: GIT_ENV, encoding: "utf8" });

  write("src/app.ts", "export const a = 1;\nexport const b = 2;\nexport const c = 3;\n");
  write("src/util.ts", "export function id<T>(x: T): T {\n  return x;\n}\n");
  write("README.md", "# Fixture\n\nA workspace for tests.\n");
  write("data/blob.bin", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02, 0x0a]));
  write(".gitignore", "*.log\nbuild/\n");
  write("node_modules/dep/index.js", "module.exports = 'dependency';\n");
  symlinkSync("README.md", join(root, "link-to-readme"));
  if (options.git !== false) {
    git("init", "-q", "-b", "main");
    git("add", "-A");
    git("commit", "-q", "-m", "initial");
    write("src/app.ts", "export const a = 1;\nexport const b = 20;\nexport const c = 3;\nexport const d = 4;\n");
    write("src/util.ts", "export function id<T>(x: T): T {\n  return x; // staged\n}\n");
    git("add", "src/util.ts");
    write("notes.txt", "untracked notes\n");
  }
  write("debug.log", "ignored log line\n");
  write("build/out.js", "ignored build output\n");
  symlinkSync(join(outside, "secret.txt"), join(root, "escape-file"));
  symlinkSync(outside, join(root, "escape-dir"));
  return { root, outside, write, git, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

/** Writes an executable node script (with a shebang) into the workspace. */
export function writeScript(ws: FixtureWorkspace, rel: string, body: string): void {
  ws.write(rel, `#!/usr/bin/env node\n${body}\n`);
  chmodSync(join(ws.root, rel), 0o755);
}

/** A workspace tool's name. */
export type ToolName = keyof WorkspaceToolResults;

/**
 * A tool result as the tests read it: `data` typed as the tool's success result merged with the error fields,
 * since a test asserts on either (and a failed command carries both).
 */
export interface ToolOutcome<N extends ToolName = ToolName> {
  isError: boolean;
  text: string;
  data: WorkspaceToolResults[N] & Partial<WorkspaceErrorContent>;
}

/** A client connected to a workspace server over an in-memory transport pair. */
export interface WorkspaceClient {
  client: Client;
  call<N extends ToolName>(
    name: N,
    args?: Record<string, unknown>,
    options?: { signal?: AbortSignal },
  ): Promise<ToolOutcome<N>>;
  close(): Promise<void>;
}

/** Reads a tool result into {@link ToolOutcome}; the cast is the tool's documented result contract. */
export function toOutcome<N extends ToolName>(result: unknown): ToolOutcome<N> {
  const r = result as { isError?: boolean; content?: { type: string; text?: string }[]; structuredContent?: unknown };
  const text = (r.content ?? []).map((c) => c.text ?? "").join("\n");
  return { isError: r.isError === true, text, data: (r.structuredContent ?? {}) as ToolOutcome<N>["data"] };
}

/** Creates the server with `options` and connects an MCP SDK client to it in memory. */
export async function connectWorkspace(options: WorkspaceServerOptions): Promise<WorkspaceClient> {
  const server = createWorkspaceServer(options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "workspace-test", version: "1.0.0" });
  await client.connect(clientSide);
  return {
    client,
    call: async (name, args = {}, callOptions = {}) =>
      toOutcome(
        await client.callTool({ name, arguments: args }, undefined, { signal: callOptions.signal, timeout: 60_000 }),
      ),
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** True while a process with this pid exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return true;
  }
}

/** Waits until `check()` holds, polling; gives up (returning false) after `limitMs` — a bound, not a timing assertion. */
export async function eventually(check: () => boolean, limitMs = 10_000): Promise<boolean> {
  const until = Date.now() + limitMs;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}
