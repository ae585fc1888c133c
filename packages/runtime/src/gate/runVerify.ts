import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { isInside, projectRoot, runProcess, stripAnsi, type VerifyCommand } from "@meshflow/core";

/** Default time limit of one verify command. */
const DEFAULT_VERIFY_TIMEOUT_MS = 120_000;

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
  /** The last lines (at most 20) of stdout, then stderr. */
  tail: string;
  /** Why the command could not start or was refused (cwd outside the folder, not found). */
  error?: string;
  /**
   * Not run by the gate: it passed in this story's step `step` through `tool` (call `key`) with nothing
   * written after it, so the gate reused that result.
   */
  reused?: { step: number; tool: string; key: string };
}

/** A verify command the gate may take as passed without running it (see `reusableVerifies`). */
export interface ReusedVerify {
  step: number;
  tool: string;
  key: string;
}

/** The completion gate's verdict for one story. */
export interface GateResult {
  passed: boolean;
  results: VerifyResult[];
  summary: string;
}

/** Lines of a failed command's output that the gate reports (terminal, `flow status`, evidence). */
const TAIL_LINES = 20;
/** Bytes kept of each stream of a verify command: its output never grows memory without bound. */
const MAX_OUTPUT_BYTES = 64 * 1024;
const KILL_GRACE_MS = 2_000;

/** The last {@link TAIL_LINES} lines of `text`, each cut to a sane width. */
function lastLines(text: string): string {
  const lines = text.replace(/\s+$/, "").split("\n");
  const kept = lines.slice(-TAIL_LINES).map((l) => (l.length > 400 ? `…${l.slice(-400)}` : l));
  return `${lines.length > TAIL_LINES ? "…\n" : ""}${kept.join("\n")}`;
}

async function runOne(
  command: VerifyCommand,
  root: string,
  project: string,
  signal: AbortSignal,
): Promise<VerifyResult> {
  const [file, ...args] = command.run;
  const name = command.name ?? command.run.join(" ");
  const cwdRel = command.cwd ?? ".";
  const base = { name, run: command.run, cwd: cwdRel, exitCode: null, signal: null, timedOut: false, durationMs: 0 };
  let cwd: string;
  try {
    // Symlinks are resolved so a link cannot lead the command out of the project.
    cwd = realpathSync(resolve(root, cwdRel));
  } catch {
    return { ...base, tail: "", error: `cwd "${cwdRel}" does not exist` };
  }
  if (!isInside(realpathSync(project), cwd))
    return { ...base, tail: "", error: `cwd "${cwdRel}" is outside the project ${project}` };
  const timeout = command.timeoutMs ?? DEFAULT_VERIFY_TIMEOUT_MS;
  // Own process group: at the time limit or on abort the whole tree is killed, grandchildren too.
  const outcome = await runProcess(file ?? "", args, {
    cwd,
    timeoutMs: timeout,
    maxOutputBytes: MAX_OUTPUT_BYTES,
    killGraceMs: KILL_GRACE_MS,
    signal,
  });
  // Test runners colour their output when they think a terminal reads it; the tail is kept and shown as text.
  const output = lastLines(stripAnsi(`${outcome.stdout.text}${outcome.stderr.text}`));
  const result = {
    ...base,
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    timedOut: outcome.timedOut,
    durationMs: outcome.durationMs,
    tail: output,
  };
  if (outcome.spawnError) return { ...result, error: `${file}: ${outcome.spawnError.message}` };
  if (outcome.timedOut) return { ...result, error: `timed out after ${timeout} ms` };
  if (outcome.aborted) return { ...result, error: "aborted" };
  return result;
}

/**
 * The completion gate: runs a story's `verify` commands in order (no shell), each in a working
 * directory relative to `root` (the PRD's folder) and confined to its project ({@link projectRoot}: the
 * git repository, else the folder holding `.mcp.json`, else `root` itself), in a process group of its own killed whole at its time
 * limit, with bounded output; a failure's summary ends with the last 20 lines of its output.
 * Passes when every command exits 0; stops at the first that does not. A command in `reuse` (by its
 * place in `commands`) is not run: it passed in a step of the story with nothing written since, and its
 * result says so (`reused`).
 */
export async function runVerify(
  commands: readonly VerifyCommand[],
  root: string,
  signal: AbortSignal = new AbortController().signal,
  reuse: ReadonlyMap<number, ReusedVerify> = new Map(),
): Promise<GateResult> {
  const results: VerifyResult[] = [];
  const project = projectRoot(root);
  for (const [index, command] of commands.entries()) {
    const earlier = reuse.get(index);
    if (earlier) {
      const { step, tool, key } = earlier;
      results.push({
        name: command.name ?? command.run.join(" "),
        run: command.run,
        cwd: command.cwd ?? ".",
        exitCode: 0,
        signal: null,
        timedOut: false,
        durationMs: 0,
        tail: "",
        reused: { step, tool, key },
      });
      continue;
    }
    const result = await runOne(command, root, project, signal);
    results.push(result);
    if (result.exitCode !== 0) {
      const why = result.error ?? `exit code ${result.exitCode ?? result.signal}`;
      const shown = result.tail ? `\n${result.tail.replace(/^/gm, "  | ")}` : "";
      return { passed: false, results, summary: `verify "${result.name}" failed: ${why}${shown}` };
    }
  }
  const n = commands.length;
  const reused = results.filter((r) => r.reused);
  const steps = [...new Set(reused.map((r) => r.reused?.step))].join(", ");
  const note = reused.length
    ? ` (${reused.length} reused from step ${steps}: passed there, nothing written since)`
    : "";
  return {
    passed: true,
    results,
    summary: n ? `${n} verify command${n === 1 ? "" : "s"} passed${note}` : "no verify commands",
  };
}
