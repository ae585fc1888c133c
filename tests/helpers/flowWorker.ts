import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import type { FlowWorkspace } from "./flowWorkspace.js";
import { FIXTURE_AGENTS } from "./flowWorkspace.js";
import { FLOW_BIN, flowEnv } from "./runFlow.js";

/** A real `flow worker` subprocess. */
export interface FlowWorker {
  child: ChildProcessWithoutNullStreams;
  /** Everything it wrote to stderr so far (its log). */
  log(): string;
  /** Resolves once it printed its "processing …" line. */
  ready: Promise<void>;
  /** Resolves with its exit code (null when killed by a signal). */
  exit: Promise<number | null>;
  /** Sends a signal (SIGTERM drains; SIGKILL is a crash) and waits for the process to end. */
  stop(signal: NodeJS.Signals): Promise<number | null>;
}

/** Short lock and stall timings, so a killed worker's jobs return to the queue within seconds. */
export const FAST_FAILOVER = ["--lock-duration", "3000", "--stalled-interval", "1000"];

/**
 * Starts `flow worker --redis <url> …args` in the workspace (its `.mcp.json`, the fixture agents,
 * its folder as working directory, `env` on top) and waits until it is processing.
 */
export async function startFlowWorker(
  ws: Pick<FlowWorkspace, "dir">,
  redisUrl: string,
  args: readonly string[] = [],
  env: Record<string, string | undefined> = {},
): Promise<FlowWorker> {
  const child = spawn(process.execPath, [FLOW_BIN, "worker", "--redis", redisUrl, ...args], {
    cwd: ws.dir,
    env: flowEnv({ FLOW_HOME: undefined, FLOW_REDIS_URL: undefined, FLOW_AGENTS: FIXTURE_AGENTS, ...env }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const ready = new Promise<void>((resolve, reject) => {
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
      if (/: processing /.test(stderr)) resolve();
    });
    void exit.then((code) => reject(new Error(`flow worker exited (${code}) before it was ready:\n${stderr}`)));
  });
  child.stdout.resume();
  child.stdin.end();
  await ready;
  return {
    child,
    log: () => stderr,
    ready,
    exit,
    async stop(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exit;
    },
  };
}

/** Polls `check` every 100 ms until it returns a value other than undefined or false, or fails after `timeoutMs`. */
export async function until<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 45_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
