import { execFile } from "node:child_process";
import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import type { VerifyCommand } from "@meshflow/core";

/** Default time limit of one verify command. */
export const DEFAULT_VERIFY_TIMEOUT_MS = 120_000;
const TAIL_CHARS = 2_000;

/** What one verify command did. */
export interface VerifyResult {
  name: string;
  run: string[];
  /** The working directory, relative to the PRD's folder. */
  cwd: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  /** The last characters of stdout and stderr together. */
  tail: string;
  /** Why the command could not start or was refused (cwd outside the folder, not found). */
  error?: string;
}

/** The completion gate's verdict for one story. */
export interface GateResult {
  passed: boolean;
  results: VerifyResult[];
  summary: string;
}

function tail(text: string): string {
  return text.length > TAIL_CHARS ? `…${text.slice(-TAIL_CHARS)}` : text;
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function runOne(command: VerifyCommand, root: string, signal: AbortSignal): Promise<VerifyResult> {
  const [file, ...args] = command.run;
  const name = command.name ?? command.run.join(" ");
  const cwdRel = command.cwd ?? ".";
  const base = { name, run: command.run, cwd: cwdRel, exitCode: null, signal: null, timedOut: false, durationMs: 0 };
  let cwd: string;
  try {
    // Symlinks are resolved so a link cannot lead the command out of the PRD's folder.
    cwd = realpathSync(resolve(root, cwdRel));
  } catch {
    return Promise.resolve({ ...base, tail: "", error: `cwd "${cwdRel}" does not exist` });
  }
  if (!inside(realpathSync(root), cwd))
    return Promise.resolve({ ...base, tail: "", error: `cwd "${cwdRel}" is outside the PRD's folder` });
  const timeout = command.timeoutMs ?? DEFAULT_VERIFY_TIMEOUT_MS;
  const start = performance.now();
  return new Promise((done) => {
    execFile(
      file ?? "",
      args,
      { cwd, timeout, killSignal: "SIGKILL", maxBuffer: 64 * 1024 * 1024, signal, windowsHide: true },
      (error, stdout, stderr) => {
        const durationMs = Math.round(performance.now() - start);
        const output = tail(`${stdout}${stderr}`);
        if (!error) return done({ ...base, exitCode: 0, durationMs, tail: output });
        const failure = error as NodeJS.ErrnoException & { code?: unknown; killed?: boolean; signal?: string | null };
        if (typeof failure.code === "string" && failure.code !== "ABORT_ERR")
          return done({ ...base, durationMs, tail: output, error: `${file}: ${failure.message}` });
        const timedOut = failure.killed === true && !signal.aborted;
        done({
          ...base,
          exitCode: typeof failure.code === "number" ? failure.code : null,
          signal: failure.signal ?? null,
          timedOut,
          durationMs,
          tail: output,
          ...(timedOut ? { error: `timed out after ${timeout} ms` } : signal.aborted ? { error: "aborted" } : {}),
        });
      },
    );
  });
}

/**
 * The completion gate: runs a story's `verify` commands in order (execFile, no shell), each in a
 * working directory confined to the PRD's folder, with a time limit, keeping the tail of the output.
 * Passes when every command exits 0; stops at the first that does not.
 */
export async function runVerify(
  commands: readonly VerifyCommand[],
  root: string,
  signal: AbortSignal = new AbortController().signal,
): Promise<GateResult> {
  const results: VerifyResult[] = [];
  for (const command of commands) {
    const result = await runOne(command, root, signal);
    results.push(result);
    if (result.exitCode !== 0) {
      const why = result.error ?? `exit code ${result.exitCode ?? result.signal}`;
      return { passed: false, results, summary: `verify "${result.name}" failed: ${why}` };
    }
  }
  const n = commands.length;
  return {
    passed: true,
    results,
    summary: n ? `${n} verify command${n === 1 ? "" : "s"} passed` : "no verify commands",
  };
}
