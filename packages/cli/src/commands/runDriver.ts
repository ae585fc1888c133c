import {
  eventLine,
  formatProblem,
  isMeshflowError,
  type ModelTextDelta,
  type ModelWait,
  type Problem,
  type RunEvent,
} from "@meshflow/core";
import type { FileRunStore, RunDependencies, RunSession, RunSummary } from "@meshflow/runtime/host";
import { storyReports } from "@meshflow/runtime/host";
import { terminalColors } from "../colors.js";
import { EXIT, type ExitCode, exitCodeFor } from "../exitCodes.js";
import { LineBatch } from "../LineBatch.js";
import { type Output, storyList } from "../output.js";
import { printProblems } from "../printProblems.js";
import { formatEvent } from "../runView/formatEvent.js";
import { summaryTable } from "../runView/summaryTable.js";
import { TreeView } from "../runView/TreeView.js";
import { waitLine } from "../runView/waitLine.js";
import { destructivePrompt } from "./destructivePrompt.js";
import type { CassetteFlags, ModelFlags } from "./modelSettings.js";
import { type CommandEnvironment, type EnvironmentOptions, runEnvironment } from "./runEnvironment.js";
import { watchStopRequests } from "./stopRequests.js";

// How flow drives one run, shared by `flow run` (one PRD, a folder, a re-run) and `flow resume`:
// the view of its events, Ctrl-C, the closing report and exit code.

/** The flags `flow run` and `flow resume` share: the run's environment, models, output. */
export interface RunFlags extends ModelFlags, CassetteFlags {
  mcpConfig?: string;
  routing?: string;
  agents?: string[];
  store?: string;
  skills?: string;
  /** `inline` or `queue`: tool calls as BullMQ jobs for `flow worker`s. */
  executor?: string;
  redis?: string;
  redisPrefix?: string;
  callsPerMinute?: number;
  json?: boolean;
  /** Ask before each destructive call (on a terminal; refuse them off one). */
  confirmDestructive?: boolean;
  /** `--wait-for-approval [duration]`: ms, or true (until decided). */
  waitForApproval?: number | true;
}

/** How a run's events are shown: `--json` lines, a live tree on a terminal, or plain lines. */
export interface View {
  onEvent(event: RunEvent): void;
  /** The models' text while their turns run: only a view that shows it has one (then turns stream). */
  onModelText?(delta: ModelTextDelta): void;
  /** A model's wait before it asks again (429, 529): transient, like the text. */
  onModelWait?(wait: ModelWait): void;
  stop(): void;
  /** Stops drawing while a question is on the terminal. */
  pause(): void;
  resume(): void;
}

/** The view of `--json`, a terminal, or plain lines. */
export function viewFor(options: { json?: boolean }, output: Output): View {
  const still = { pause: () => {}, resume: () => {} };
  if (options.json) {
    const lines = new LineBatch((text) => output.out(text));
    return { onEvent: (e) => lines.push(eventLine(e)), stop: () => lines.flush(), ...still };
  }
  const c = terminalColors();
  if (process.stdout.isTTY && !process.env.CI) {
    const tree = new TreeView((text) => process.stdout.write(text), c);
    tree.start();
    return {
      onEvent: (e) => tree.onEvent(e),
      onModelText: (delta) => tree.onModelText(delta),
      onModelWait: (wait) => tree.onModelWait(wait),
      stop: () => tree.stop(),
      pause: () => tree.pause(),
      resume: () => tree.start(),
    };
  }
  return {
    onEvent: (e) => {
      const line = formatEvent(e, c);
      if (line) output.out(line);
    },
    onModelWait: (wait) => output.out(`${wait.storyId} step ${wait.step}   model ${waitLine(wait)}`),
    stop: () => {},
    ...still,
  };
}

/**
 * What a run tells its view: every event, the models' text as it streams when the view shows it, and
 * the waits of refused model requests.
 */
export function viewListeners(view: View): Pick<RunDependencies, "onEvent" | "onModelText" | "onModelWait"> {
  const { onModelText, onModelWait } = view;
  return {
    onEvent: (e) => view.onEvent(e),
    ...(onModelText ? { onModelText: (delta: ModelTextDelta) => onModelText.call(view, delta) } : {}),
    ...(onModelWait ? { onModelWait: (wait: ModelWait) => onModelWait.call(view, wait) } : {}),
  };
}

/**
 * The closing summary table of a run (not with `--json`), from the run's journal: a resumed run's
 * table has the stories finished before it stopped too.
 */
export async function printSummaryTable(summary: RunSummary, store: FileRunStore, output: Output): Promise<void> {
  if (!summary.runId || summary.error || summary.status === "refused") return;
  const { record, events } = await store.read(summary.runId);
  const stories = storyReports(record, events).filter((s) => s.status !== "pending");
  if (stories.length) output.out(`\n${summaryTable(stories, terminalColors()).join("\n")}`);
}

/** The `--confirm-destructive` question, asked on the terminal around the view. */
export function confirmation(options: RunFlags, view: View): Pick<RunDependencies, "confirmDestructive"> {
  if (!options.confirmDestructive) return {};
  const isTTY = process.stdin.isTTY === true && process.stderr.isTTY === true;
  return {
    confirmDestructive: destructivePrompt(
      { input: process.stdin, output: process.stderr, isTTY },
      {
        before: () => view.pause(),
        after: () => view.resume(),
        onInterrupt: () => process.kill(process.pid, "SIGINT"),
      },
    ),
  };
}

/**
 * Runs a session to its end; Ctrl-C aborts it cleanly: nothing new starts, calls in flight finish and
 * are journaled (the MCP servers, in process groups of their own, never see the terminal's SIGINT).
 * A second Ctrl-C exits at once (130); the servers are killed on the way out. `stopRequests` names the
 * file whose appearance asks the run to stop the same way (see {@link watchStopRequests}).
 */
export async function drive(
  session: RunSession,
  view: View,
  output: Output,
  stopRequests?: (runId: string) => string,
): Promise<RunSummary> {
  let interrupted = false;
  // A stop asked for from elsewhere (flow console's "Stop this run") is a first Ctrl-C: the run stays resumable.
  const unwatch = stopRequests
    ? watchStopRequests({ file: stopRequests, runId: () => session.runId() }, (reason) => {
        if (interrupted) return;
        interrupted = true;
        output.err(`\nstopping (${reason}): calls in flight finish and are recorded…`);
        session.abort();
      })
    : () => {};
  const onSigint = () => {
    if (interrupted) {
      view.stop();
      const runId = session.runId();
      output.err(`\nstopped at once${runId ? `; continue it with: flow resume ${runId}` : ""}`);
      process.exit(EXIT.interrupted);
    }
    interrupted = true;
    output.err("\nstopping: calls in flight finish and are recorded (Ctrl-C again to quit at once)…");
    session.abort();
  };
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigint);
  try {
    return await session.done;
  } finally {
    unwatch();
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigint);
    view.stop();
  }
}

/** Prints how a run ended (its warnings, error, unmarked stories, run folder); the exit code. */
export function report(summary: RunSummary, options: { json?: boolean }, output: Output): ExitCode {
  const code = outcome(summary, options, output);
  const { unmarked } = summary;
  if (!unmarked) return code;
  // The stories passed, but the PRD does not say so: the run's work is not done until it does.
  const message = `${unmarked.prd}: ${storyList(unmarked.stories)} passed but not marked passed: ${unmarked.reason}; write the marks with: flow mark ${summary.runId}`;
  if (options.json) output.out(JSON.stringify({ error: { code: "prd_unmarked", message, stories: unmarked.stories } }));
  output.err(`flow: ${message}`);
  return code === EXIT.ok ? EXIT.failure : code;
}

/** The exit code of a run's outcome, its warnings and error printed. */
function outcome(summary: RunSummary, options: { json?: boolean }, output: Output): ExitCode {
  for (const warning of summary.warnings) output.err(`flow: warning: ${warning}`);
  if (summary.error) {
    const problems = (summary.error.details.problems ?? []) as Problem[];
    if (options.json)
      output.out(JSON.stringify({ error: { code: summary.error.code, message: summary.error.message } }));
    else if (problems.length) printProblems(output, problems);
    output.err(`flow: ${problems.length ? `${problems.length} problem(s); nothing was run` : summary.error.message}`);
    return exitCodeFor(summary.error.code);
  }
  if (summary.status === "aborted" && summary.paused?.code === "approval_required") {
    output.err(approvalMessage(summary.runId ?? "", summary.paused));
    return EXIT.paused;
  }
  if (summary.status === "aborted" && summary.paused) {
    output.err(pausedMessage(summary.runId ?? "", summary.paused));
    return EXIT.interrupted;
  }
  if (summary.status === "aborted") {
    output.err(`run ${summary.runId} interrupted; continue it with: flow resume ${summary.runId}`);
    return EXIT.interrupted;
  }
  if (!options.json && summary.location) output.err(`run folder: ${summary.location}`);
  if (summary.halt) output.err(`flow: the run stopped before its remaining stories: ${summary.halt}`);
  if (summary.environment) return EXIT.environment;
  return summary.status === "passed" ? EXIT.ok : EXIT.failure;
}

/** What a run paused for approvals says: the calls that wait, and how to decide and continue. */
function approvalMessage(runId: string, paused: NonNullable<RunSummary["paused"]>): string {
  const calls = (paused.pending ?? []).map((p) => `\n  ${p.key}  ${p.storyId}: ${p.tool} (${p.rule})`).join("");
  return (
    `run ${runId} paused: every story in flight waits for a person's approval; no story failed because of it${calls}\n` +
    `decide with: flow approve ${runId} <callKey>… | --all [--deny --reason <text>]\n` +
    `then continue it with: flow resume ${runId}`
  );
}

/**
 * What a run paused by its guard says: what locked it, that no story failed because of it, and the
 * `flow resume` that continues it (with a rate limit, one to raise or lift it).
 */
function pausedMessage(runId: string, paused: NonNullable<RunSummary["paused"]>): string {
  const resume =
    paused.code === "rate_limit_exceeded"
      ? `flow resume ${runId} --calls-per-minute <n> (a higher limit; 0 turns it off)`
      : `flow resume ${runId} (once whatever stopped it is dealt with)`;
  return `run ${runId} paused: the guard locked (${paused.reason}); calls in flight finished, no story failed because of it; continue it with: ${resume}`;
}

export async function withEnvironment<T>(
  options: EnvironmentOptions,
  use: (built: CommandEnvironment) => Promise<T>,
): Promise<T> {
  const built = await runEnvironment(options);
  try {
    return await use(built);
  } finally {
    await built.env.close();
  }
}

export function printFailure(error: unknown, options: { json?: boolean }, output: Output): ExitCode {
  if (!isMeshflowError(error)) throw error;
  const problems = (error.details.problems ?? []) as Problem[];
  if (!problems.length) throw error;
  if (options.json) output.out(JSON.stringify({ error: { code: error.code, message: error.message }, problems }));
  else output.err(problems.map(formatProblem).join("\n"));
  return exitCodeFor(error.code);
}
