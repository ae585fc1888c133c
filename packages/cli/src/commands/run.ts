import {
  formatProblem,
  isMeshflowError,
  isPrdFolder,
  MeshflowError,
  type Problem,
  type RunEvent,
} from "@meshflow/core";
import {
  dryRun,
  type FileRunStore,
  type ModelSettings,
  type RunDependencies,
  type RunParts,
  type RunSession,
  type RunSummary,
  resumeRun,
  storyReports,
} from "@meshflow/runtime/host";
import { terminalColors } from "../colors.js";
import { EXIT, type ExitCode, exitCodeFor } from "../exitCodes.js";
import { LineBatch } from "../LineBatch.js";
import { coded, type Output, printJson } from "../output.js";
import { printProblems } from "../printProblems.js";
import { formatEvent } from "../runView/formatEvent.js";
import { summaryTable } from "../runView/summaryTable.js";
import { TreeView } from "../runView/TreeView.js";
import { processTracing } from "../tracing.js";
import { destructivePrompt } from "./destructivePrompt.js";
import { type CassetteFlags, type ModelFlags, modelSettings } from "./modelSettings.js";
import { prdServers } from "./prdServers.js";
import { type CommandEnvironment, type EnvironmentOptions, runEnvironment } from "./runEnvironment.js";
import { resumedHooks, runPrds, type WorkflowFlags } from "./runPrds.js";

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
}

/** Options of `flow run`. */
export interface RunCommandOptions extends RunFlags, WorkflowFlags {
  story?: string[];
  failFast?: boolean;
  dryRun?: boolean;
  runId?: string;
}

/** How a run's events are shown: `--json` lines, a live tree on a terminal, or plain lines. */
export interface View {
  onEvent(event: RunEvent): void;
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
    return { onEvent: (e) => lines.push(JSON.stringify(e)), stop: () => lines.flush(), ...still };
  }
  const c = terminalColors();
  if (process.stdout.isTTY && !process.env.CI) {
    const tree = new TreeView((text) => process.stdout.write(text), c);
    tree.start();
    return {
      onEvent: (e) => tree.onEvent(e),
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
    stop: () => {},
    ...still,
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
 * A second Ctrl-C exits at once (130); the servers are killed on the way out.
 */
export async function drive(session: RunSession, view: View, output: Output): Promise<RunSummary> {
  let interrupted = false;
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
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigint);
    view.stop();
  }
}

export function report(summary: RunSummary, options: { json?: boolean }, output: Output): ExitCode {
  for (const warning of summary.warnings) output.err(`flow: warning: ${warning}`);
  if (summary.error) {
    const problems = (summary.error.details.problems ?? []) as Problem[];
    if (options.json)
      output.out(JSON.stringify({ error: { code: summary.error.code, message: summary.error.message } }));
    else if (problems.length) printProblems(output, problems);
    output.err(`flow: ${problems.length ? `${problems.length} problem(s); nothing was run` : summary.error.message}`);
    return exitCodeFor(summary.error.code);
  }
  if (summary.status === "aborted") {
    output.err(`run ${summary.runId} interrupted; continue it with: flow resume ${summary.runId}`);
    return EXIT.interrupted;
  }
  if (!options.json && summary.location) output.err(`run folder: ${summary.location}`);
  if (summary.environment) return EXIT.environment;
  return summary.status === "passed" ? EXIT.ok : EXIT.failure;
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

async function dryRunCommand(file: string, options: RunCommandOptions, parts: RunParts, output: Output) {
  const result = await dryRun(parts, { prdFile: file, stories: options.story });
  for (const warning of result.warnings) output.err(`flow: warning: ${warning}`);
  if (options.json) printJson(output, result);
  else {
    for (const story of result.stories) {
      output.out(`${story.id}${story.skipped ? "  — skipped: passes is true" : ""}`);
      for (const step of story.steps) {
        const plan =
          step.plan === "code"
            ? step.calls.length
              ? "think() of its own, with the story's scripted calls"
              : "think() of its own; the story declares no calls for this step (see the specialist's README for what it does without them)"
            : step.plan === "scripted"
              ? "scripted calls"
              : step.plan === "model"
                ? step.calls.length
                  ? "the story's scripted calls, then the model"
                  : "the model"
                : `BLOCKED: ${step.blocked ?? "no plan, no calls, no model"}`;
        output.out(
          `  step ${step.step} → ${step.specialist} (${step.tools} tools from ${step.servers.join(", ") || "no servers"}): ${plan}`,
        );
        if (step.model)
          output.out(
            `    model ${step.model.name}: first request ${step.model.promptBytes} bytes of prompt + ${step.model.toolBytes} bytes of ${step.model.tools} tool definitions`,
          );
        for (const call of step.calls)
          output.out(
            call.refused
              ? `    ✗ ${call.name}: ${coded(call.refused.code, call.refused.message)}`
              : `    ✓ ${call.name} → ${call.tool} (${call.tier})${call.warnings?.length ? ` warning: ${call.warnings.join("; ")}` : ""}`,
          );
      }
    }
    output.out(`dry run: nothing was called; ${result.refusals} call(s) would be refused`);
  }
  const blocked = result.stories.some((s) => !s.skipped && s.steps.some((st) => st.plan === "blocked"));
  // As a run would: a server that could not be listed blocks its steps, an environment failure.
  if (result.failures.length) return EXIT.environment;
  return result.refusals || blocked ? EXIT.failure : EXIT.ok;
}

/** `flow run <prd.json | folder>`: runs a PRD (or a folder of them); exit 0 when every selected story passed. */
export async function runCommand(
  given: string | undefined,
  options: RunCommandOptions,
  output: Output,
): Promise<ExitCode> {
  try {
    // A folder, flags of the PRD workflow, or a re-run: one or more PRDs, each with its progress and memory.
    if (!options.dryRun) return await runPrds(given, options, output);
    if (!given || isPrdFolder(given))
      throw new MeshflowError("usage", "--dry-run takes one PRD file (not a folder, not --rerun-failed)");
    const models = modelSettings(options);
    return await withEnvironment({ ...options, models }, ({ parts }) => dryRunCommand(given, options, parts, output));
  } catch (error) {
    return printFailure(error, options, output);
  }
}

/**
 * `flow resume <runId>`: continues an interrupted run with the environment it was started with.
 * `given` names the options set on this command line (they override what the run recorded).
 */
export async function resumeCommand(
  runId: string,
  options: RunFlags,
  output: Output,
  given: (option: keyof (ModelFlags & CassetteFlags)) => boolean = () => true,
): Promise<ExitCode> {
  try {
    const { FileRunStore } = await import("@meshflow/runtime/host");
    const { record } = await new FileRunStore(options.store).read(runId);
    const env: EnvironmentOptions = {
      store: options.store,
      executor: options.executor,
      redis: options.redis,
      redisPrefix: options.redisPrefix,
      mcpConfig: options.mcpConfig ?? record.options.mcpConfig,
      routing: options.routing ?? record.options.routing,
      agents: options.agents ?? record.options.agents,
      skills: options.skills ?? record.options.skills,
      builtin: options.agents === undefined && options.skills === undefined && record.options.builtin === true,
      models: resumedModels(record.options.models, options, given),
      resumed: true,
      callsPerMinute: options.callsPerMinute ?? record.options.callsPerMinute,
      warm: prdServers(record.prd, record.options.stories),
    };
    return await withEnvironment(env, async (command) => {
      const { parts, env: built } = command;
      const view = viewFor(options, output);
      const hooks = await resumedHooks(record, command, options, output);
      const trace = (await processTracing())?.runSink();
      const session = await resumeRun(
        {
          ...parts,
          hooks,
          onEvent: (e) => {
            view.onEvent(e);
            trace?.(e);
          },
          ...confirmation(options, view),
        },
        runId,
      );
      const summary = await drive(session, view, output);
      if (!options.json) await printSummaryTable(summary, built.store, output);
      return report(summary, options, output);
    });
  } catch (error) {
    return printFailure(error, options, output);
  }
}

/** The model settings of a resumed run: what it recorded, with the options given now on top. */
function resumedModels(
  recorded: ModelSettings | undefined,
  options: RunFlags,
  given: (option: keyof (ModelFlags & CassetteFlags)) => boolean,
): ModelSettings {
  const now = modelSettings(options);
  if (!recorded) return now;
  const pick = <K extends keyof ModelSettings>(
    key: K,
    flag: keyof (ModelFlags & CassetteFlags),
  ): Partial<ModelSettings> => {
    const value = given(flag) && options[flag] !== undefined ? now[key] : recorded[key];
    return value === undefined ? {} : { [key]: value };
  };
  return {
    ...now,
    ...pick("model", "model"),
    ...pick("baseUrl", "modelBaseUrl"),
    ...pick("maxTurns", "maxTurns"),
    ...pick("maxStepTokens", "maxStepTokens"),
    ...pick("stepTimeoutMs", "stepTimeout"),
    ...pick("maxResultChars", "maxResultChars"),
    ...pick("record", "record"),
    ...pick("replay", "replay"),
  } as ModelSettings;
}

export function printFailure(error: unknown, options: { json?: boolean }, output: Output): ExitCode {
  if (!isMeshflowError(error)) throw error;
  const problems = (error.details.problems ?? []) as Problem[];
  if (!problems.length) throw error;
  if (options.json) output.out(JSON.stringify({ error: { code: error.code, message: error.message }, problems }));
  else output.err(problems.map(formatProblem).join("\n"));
  return exitCodeFor(error.code);
}
