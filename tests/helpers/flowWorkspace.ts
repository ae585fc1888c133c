import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunEvent } from "@meshflow/core";
import { FLOW_BIN, flowEnv, ROOT, runFlow } from "./runFlow.js";
import { flowOnTerminal, type TerminalFlow } from "./terminalFlow.js";

const require = createRequire(import.meta.url);

/** The JS entry of an npm MCP server package, run with `process.execPath` (no npx). */
export function serverEntry(pkg: string): string {
  return require.resolve(`${pkg}/dist/index.js`);
}

/** Specialists of the end-to-end tests (scripted development/refactor/security, a code quality-agent). */
export const FIXTURE_AGENTS = join(ROOT, "tests/fixtures/agents");
/** A real stdio MCP server of ours whose tools append lines and wait for release files. */
export const SLOW_SERVER = join(ROOT, "tests/fixtures/servers/slow-server.mjs");

/** A throw-away folder with a PRD, an MCP config (memory, filesystem, slow, everything) and a run store. */
export interface FlowWorkspace {
  dir: string;
  /** Folder the filesystem and slow servers may touch. */
  files: string;
  prd: string;
  memoryFile: string;
  writePrd(stories: Array<Record<string, unknown>>): string;
  /** `flow <args>` in the workspace with the fixture agents and config (and `env` on top of the workspace's). */
  flow(args: readonly string[], env?: Record<string, string | undefined>): ReturnType<typeof runFlow>;
  /**
   * Starts `flow <args>` and hands back the child and a stream of its `--json` events. `detached`:
   * in a process group of its own, as a terminal's foreground job is (signal it with `-pid`); `env`
   * on top of the workspace's.
   */
  spawnFlow(
    args: readonly string[],
    options?: { detached?: boolean; env?: Record<string, string | undefined> },
  ): {
    child: ChildProcessWithoutNullStreams;
    events: RunEvent[];
    next(match: (e: RunEvent) => boolean): Promise<RunEvent>;
    exit: Promise<number | null>;
    /** What it wrote on stderr so far. */
    stderr(): string;
  };
  /** Starts `flow <args>` in the workspace on a pseudo-terminal (its live view on), `env` on top of the workspace's. */
  flowOnTerminal(args: readonly string[], env?: Record<string, string | undefined>): TerminalFlow;
  /** Entity names in server-memory's file. */
  entities(): string[];
  read(file: string): string;
}

/** Complete PRD stories from the fields a test cares about: `US-001`, `US-002`… on step 1 unless given. */
export function testStories(stories: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  return stories.map((story, i) => ({
    id: `US-00${i + 1}`,
    title: `Story ${i + 1}`,
    description: "",
    acceptanceCriteria: [],
    mavenSteps: [1],
    priority: 1,
    passes: false,
    notes: "",
    ...story,
  }));
}

/** How a {@link FlowWorkspace} runs `flow`. */
export interface FlowWorkspaceOptions {
  /** Specialist folders (`FLOW_AGENTS`); default the fixture agents. */
  agents?: string;
  /** More environment for every `flow` of the workspace (e.g. `FLOW_SKILLS`, model settings). */
  env?: Record<string, string | undefined>;
}

/** Creates a {@link FlowWorkspace}. */
export function flowWorkspace(options: FlowWorkspaceOptions = {}): FlowWorkspace {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-e2e-"));
  const files = join(dir, "files");
  mkdirSync(files);
  const memoryFile = join(dir, "memory.jsonl");
  const config = {
    mcpServers: {
      memory: {
        command: process.execPath,
        args: [serverEntry("@modelcontextprotocol/server-memory")],
        env: { MEMORY_FILE_PATH: memoryFile },
      },
      filesystem: { command: process.execPath, args: [serverEntry("@modelcontextprotocol/server-filesystem"), files] },
      slow: { command: process.execPath, args: [SLOW_SERVER, files] },
      everything: { command: process.execPath, args: [serverEntry("@modelcontextprotocol/server-everything")] },
    },
  };
  writeFileSync(join(dir, ".mcp.json"), JSON.stringify(config, null, 2));
  const prd = join(dir, "prd.json");
  // No skills unless a test names them: the runs exercise the runtime, not the built-in skills' grants.
  const noSkills = join(dir, "no-skills");
  mkdirSync(noSkills);
  const env = {
    FLOW_AGENTS: options.agents ?? FIXTURE_AGENTS,
    FLOW_SKILLS: noSkills,
    FLOW_HOME: undefined,
    ...options.env,
  };
  const events: RunEvent[] = [];
  return {
    dir,
    files,
    prd,
    memoryFile,
    writePrd(stories) {
      const userStories = testStories(stories);
      const text = `${JSON.stringify({ project: "E2E", branchName: "flow/e2e", custom: { keep: [1, 2] }, userStories }, null, 2)}\n`;
      writeFileSync(prd, text);
      return text;
    },
    flow: (args, more) => runFlow(args, { cwd: dir, env: { ...env, ...more } }),
    flowOnTerminal: (args, more) => flowOnTerminal(args, { cwd: dir, env: { ...env, ...more } }),
    spawnFlow(args, options = {}) {
      const child = spawn(process.execPath, [FLOW_BIN, ...args], {
        cwd: dir,
        env: flowEnv({ ...env, ...options.env }),
        stdio: ["pipe", "pipe", "pipe"],
        detached: options.detached === true,
      });
      const waiters: Array<{ match: (e: RunEvent) => boolean; resolve: (e: RunEvent) => void }> = [];
      let buffer = "";
      child.stdout.on("data", (chunk: Buffer) => {
        buffer += chunk.toString("utf8");
        let at = buffer.indexOf("\n");
        while (at >= 0) {
          const line = buffer.slice(0, at);
          buffer = buffer.slice(at + 1);
          at = buffer.indexOf("\n");
          if (!line.startsWith("{")) continue;
          const event = JSON.parse(line) as RunEvent;
          events.push(event);
          for (const w of [...waiters])
            if (w.match(event)) {
              waiters.splice(waiters.indexOf(w), 1);
              w.resolve(event);
            }
        }
      });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
      });
      const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
      return {
        child,
        events,
        exit,
        stderr: () => stderr,
        next(match) {
          const seen = events.find(match);
          if (seen) return Promise.resolve(seen);
          return new Promise((resolve, reject) => {
            waiters.push({ match, resolve });
            void exit.then(() =>
              reject(new Error(`flow exited before the awaited event; saw ${events.map((e) => e.type).join(", ")}`)),
            );
          });
        },
      };
    },
    entities() {
      if (!existsSync(memoryFile)) return [];
      return readFileSync(memoryFile, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type: string; name?: string })
        .filter((r) => r.type === "entity")
        .map((r) => r.name ?? "");
    },
    read: (file) => readFileSync(join(files, file), "utf8"),
  };
}

/** Parses `--json` NDJSON output into events. */
export function parseEvents(stdout: string): RunEvent[] {
  return stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as RunEvent);
}
