import { type ChildProcess, spawn } from "node:child_process";
import type { StdioServerConfig } from "@meshflow/core";

/** What a stdio server is started with. */
export interface DetachedStdioParameters {
  command: string;
  args?: readonly string[];
  /** Merged over the SDK's safe default environment (PATH, HOME, …), as its own transport does. */
  env?: Record<string, string>;
  cwd?: string;
}

/** How a configured stdio server is started. */
export function stdioParameters(config: StdioServerConfig): DetachedStdioParameters {
  return { command: config.command, args: config.args, env: config.env, ...(config.cwd ? { cwd: config.cwd } : {}) };
}

/**
 * The variables a server inherits from our environment, as the MCP SDK's `getDefaultEnvironment()`
 * chooses them (a test holds the two equal). Kept here so starting a server needs no SDK module.
 */
const INHERITED =
  process.platform === "win32"
    ? [
        "APPDATA",
        "HOMEDRIVE",
        "HOMEPATH",
        "LOCALAPPDATA",
        "PATH",
        "PROCESSOR_ARCHITECTURE",
        "SYSTEMDRIVE",
        "SYSTEMROOT",
        "TEMP",
        "USERNAME",
        "USERPROFILE",
        "PROGRAMFILES",
      ]
    : ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/** The safe part of our environment a server gets: {@link INHERITED}, without shell functions. */
export function defaultServerEnvironment(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const inherited: Record<string, string> = {};
  for (const key of INHERITED) {
    const value = env[key];
    if (value !== undefined && !value.startsWith("()")) inherited[key] = value;
  }
  return inherited;
}

/** Identifies a start: two starts with the same key run the same process the same way. */
export function spawnKey(params: DetachedStdioParameters): string {
  return JSON.stringify([params.command, params.args ?? [], params.env ?? {}, params.cwd ?? null]);
}

/** Process groups of the servers still running; killed when this process exits, however it exits. */
const live = new Set<number>();
let exitHook = false;

/** Remembers a server's process group, to kill it if this process exits with it still running. */
export function trackGroup(pid: number): void {
  live.add(pid);
  if (exitHook) return;
  exitHook = true;
  // `process.exit()` (a second Ctrl-C) skips every async close: the servers, detached from our
  // process group, would outlive us. `exit` handlers run synchronously, so `kill` still works here.
  process.once("exit", () => {
    for (const group of live) killGroup(group, "SIGKILL");
  });
}

/** Forgets a process group that is gone. */
export function untrackGroup(pid: number | undefined): void {
  if (pid !== undefined) live.delete(pid);
}

/**
 * Starts a stdio server in a process group of its own: a Ctrl-C on the terminal (SIGINT to the
 * foreground group) reaches `flow`, which decides what happens to the calls in flight, never the
 * servers themselves. stdio is piped; nothing is read until the caller reads.
 */
export function spawnServer(params: DetachedStdioParameters): ChildProcess {
  return spawn(params.command, [...(params.args ?? [])], {
    env: { ...defaultServerEnvironment(), ...params.env },
    stdio: ["pipe", "pipe", "pipe"],
    cwd: params.cwd,
    detached: true,
    windowsHide: true,
  });
}

const GRACE_MS = 2_000;

/**
 * Stops a server: ends its stdin, then signals its whole group (the server and anything it started)
 * if it has not exited within the grace time: SIGTERM, then SIGKILL. Resolves when it is gone.
 */
export async function stopServer(child: ChildProcess, graceMs = GRACE_MS): Promise<void> {
  const closed = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("close", () => resolve());
  });
  const within = (ms: number) =>
    Promise.race([closed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
  try {
    child.stdin?.end();
  } catch {
    // Already closed.
  }
  if (!(await within(graceMs))) {
    killGroup(child.pid, "SIGTERM");
    if (!(await within(graceMs))) killGroup(child.pid, "SIGKILL");
  }
}

/** Signals a process group (the leader's pid), else the process alone; false when neither exists. */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    try {
      process.kill(pid, signal);
      return true;
    } catch {
      return false;
    }
  }
}
