import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { OutputBuffer } from "./OutputBuffer.js";
import { PROCESS_TREE_ENV, ProcessTree } from "./ProcessTree.js";

/** How often the process tree is looked at while a command runs (Linux), to remember its descendants. */
const TRACK_INTERVAL_MS = 250;
/** After the last SIGKILL, how long the output pipes may take to close before they are dropped. */
const DRAIN_MS = 250;

/** How to run one process. */
export interface RunProcessOptions {
  cwd: string;
  timeoutMs: number;
  /** Bytes kept of each stream. */
  maxOutputBytes: number;
  /** Which end of stdout to keep when it is longer (stderr always keeps its tail). Default `tail`. */
  keepStdout?: "head" | "tail";
  killGraceMs: number;
  env?: NodeJS.ProcessEnv | undefined;
  /** Aborting (the MCP request was cancelled, the client went away) kills the process tree. */
  signal?: AbortSignal | undefined;
}

/** One captured stream: its tail, how many bytes it wrote, whether the tail is all of it. */
export interface StreamTail {
  text: string;
  bytes: number;
  truncated: boolean;
}

/** What a process did. `spawnError` is set when it could not be started at all. */
export interface ProcessOutcome {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
  stdout: StreamTail;
  stderr: StreamTail;
  spawnError?: NodeJS.ErrnoException;
}

function tail(buffer: OutputBuffer): StreamTail {
  return { text: buffer.text(), bytes: buffer.total, truncated: buffer.truncated };
}

/**
 * Runs `file` with `args` directly — no shell, so arguments are never interpreted — in its own process
 * group and session, so a timeout or cancellation kills everything it started (SIGTERM, then SIGKILL after
 * the grace period), and whatever it leaves running when it exits is killed too. On Linux that includes
 * processes that left the group (`setsid`, `detached: true`, double forks): they are found by ancestry,
 * by the sessions and groups the command's processes created, and by a marker variable in their
 * environment ({@link PROCESS_TREE_ENV}). A timeout returns within `timeoutMs + killGraceMs` (the pipes'
 * last drain included), even when a leftover holds stdout open. Never rejects.
 */
export function runProcess(file: string, args: readonly string[], options: RunProcessOptions): Promise<ProcessOutcome> {
  const started = performance.now();
  const stdout = new OutputBuffer(options.maxOutputBytes, options.keepStdout);
  const stderr = new OutputBuffer(options.maxOutputBytes);
  return new Promise((resolve) => {
    const treeId = randomUUID();
    const child = spawn(file, [...args], {
      cwd: options.cwd,
      env: { ...(options.env ?? process.env), [PROCESS_TREE_ENV]: treeId },
      shell: false,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      windowsHide: true,
    });
    let timedOut = false;
    let aborted = false;
    let exited = false;
    let graceTimer: NodeJS.Timeout | undefined;
    let done = false;

    const tree = child.pid !== undefined && ProcessTree.supported ? new ProcessTree(treeId, child.pid) : undefined;
    const tracker = tree ? setInterval(() => tree.scan(false), TRACK_INTERVAL_MS) : undefined;
    tracker?.unref();
    let drainTimer: NodeJS.Timeout | undefined;
    const killGroup = (signal: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // ESRCH: the whole group is gone already.
      }
      if (tree) {
        // Killing can race with forking: scan again until a round finds no one (bounded).
        for (let round = 0; round < 5 && tree.signal(signal) > 0 && signal === "SIGKILL"; round++);
      }
    };
    /** Everything is killed: a leftover we could not reach must not hold the call open through the pipes. */
    const drainThenFinish = (): void => {
      if (drainTimer) return;
      drainTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish(child.exitCode, child.signalCode);
      }, DRAIN_MS);
      drainTimer.unref();
    };
    const terminate = (): void => {
      killGroup("SIGTERM");
      // SIGKILL comes early enough that its pipe drain still ends within the grace period.
      graceTimer = setTimeout(
        () => {
          killGroup("SIGKILL");
          drainThenFinish();
        },
        Math.max(0, options.killGraceMs - DRAIN_MS),
      );
      graceTimer.unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      terminate();
    }, options.timeoutMs);
    const onAbort = (): void => {
      aborted = true;
      terminate();
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) onAbort();

    child.stdout.on("data", (chunk: Buffer) => stdout.write(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.write(chunk));
    // Descendants left running (and holding the pipes open) must not outlive the command.
    child.on("exit", () => {
      exited = true;
      killGroup("SIGKILL");
      if (timedOut || aborted) drainThenFinish();
      else {
        // A normal exit: leftovers were just killed; give the pipes the grace period to close.
        drainTimer = setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
          finish(child.exitCode, child.signalCode);
        }, options.killGraceMs);
        drainTimer.unref();
      }
    });

    const finish = (exitCode: number | null, signal: string | null, spawnError?: NodeJS.ErrnoException): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (graceTimer) clearTimeout(graceTimer);
      if (drainTimer) clearTimeout(drainTimer);
      if (tracker) clearInterval(tracker);
      options.signal?.removeEventListener("abort", onAbort);
      const outcome: ProcessOutcome = {
        exitCode,
        signal,
        timedOut,
        aborted,
        durationMs: Math.round(performance.now() - started),
        stdout: tail(stdout),
        stderr: tail(stderr),
      };
      if (spawnError) outcome.spawnError = spawnError;
      resolve(outcome);
    };
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (!exited && child.pid === undefined) finish(null, null, error);
    });
    child.on("close", (code, signal) => finish(code, signal));
  });
}
