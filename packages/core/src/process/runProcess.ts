import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { OutputBuffer } from "./OutputBuffer.js";

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
 * group, so a timeout or cancellation kills everything it started (SIGTERM, then SIGKILL after the grace
 * period), and whatever it leaves running when it exits is killed too. Never rejects.
 */
export function runProcess(file: string, args: readonly string[], options: RunProcessOptions): Promise<ProcessOutcome> {
  const started = performance.now();
  const stdout = new OutputBuffer(options.maxOutputBytes, options.keepStdout);
  const stderr = new OutputBuffer(options.maxOutputBytes);
  return new Promise((resolve) => {
    const child = spawn(file, [...args], {
      cwd: options.cwd,
      env: options.env ?? process.env,
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

    const killGroup = (signal: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // ESRCH: the whole group is gone already.
      }
    };
    const terminate = (): void => {
      killGroup("SIGTERM");
      graceTimer = setTimeout(() => killGroup("SIGKILL"), options.killGraceMs);
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
    });

    const finish = (exitCode: number | null, signal: string | null, spawnError?: NodeJS.ErrnoException): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (graceTimer) clearTimeout(graceTimer);
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
