import {
  eventTime,
  type McpConfig,
  MeshflowError,
  type ModelCatalog,
  type ModelTextDelta,
  type RoutingTable,
  type RunEvent,
  toMeshflowError,
} from "@meshflow/core";
import type { ConfirmDestructive } from "./internal/toolCall.js";
import { type ChiefAnalyst, createChiefAnalyst, type RunCounts } from "./machine/chiefAnalyst.js";
import { describeSaved } from "./machine/consultation.js";
import { createParallelChief, type ParallelChief } from "./machine/parallelChief.js";
import { preflightRun } from "./preflight.js";
import { driveMachine } from "./session/driveMachine.js";
import { driveParallel } from "./session/driveParallel.js";
import { endFailed, endRun } from "./session/endRun.js";
import { machineConsults } from "./session/machineConsults.js";
import type { Unmarked } from "./session/PassMarks.js";
import { PersistedActor } from "./session/PersistedActor.js";
import type { PersistedRun, SessionMode } from "./session/SessionMode.js";
import { SessionState } from "./session/SessionState.js";
import type { Specialist } from "./specialists/defineSpecialist.js";
import { assertRunId, newRunId } from "./store/FileRunStore.js";
import type { RunOptions } from "./store/RunRecord.js";
import type { RunStore } from "./store/RunStore.js";
import type { ToolPlane } from "./ToolPlane.js";
import type { StoryHooks } from "./workflow/StoryHooks.js";

/** What a run needs: tools, a store, specialists, routing and the MCP config. */
export interface RunDependencies {
  plane: ToolPlane;
  store: RunStore;
  specialists: ReadonlyMap<string, Specialist>;
  routing: RoutingTable;
  mcpConfig: McpConfig;
  /**
   * Every run event once it is stored, with what it reports (the machine's state, the journal): whoever
   * sees `step.finished` can count on a resume not running that step again. Events are handed over
   * together, at most `WRITE_WINDOW_MS` (10 ms) after they were emitted.
   */
  onEvent?: (event: RunEvent) => void;
  /**
   * Every run event as it is emitted, before it is stored and before the work it announces goes on (a
   * `tool.called` before the call is submitted): for traces, whose tool span must exist when the call
   * goes out. Nothing it sees is durable yet.
   */
  onEmitted?: (event: RunEvent) => void;
  /**
   * Told what the models say while their turns run, piece by piece, for a live view. Transient: no run
   * event, never stored, not replayed; given, model turns are streamed (absent, they are not).
   */
  onModelText?: (delta: ModelTextDelta) => void;
  /** Asked before each call of a `destructiveHint` tool; without it such calls run (and are marked). */
  confirmDestructive?: ConfirmDestructive;
  /** The run's models: stories with a model (`--model`, `model` fields, `FLOW_MODEL`) get `ctx.model`. */
  models?: ModelCatalog;
  /** The PRD workflow around each story (progress log, story memory, commits, re-runs). */
  hooks?: StoryHooks;
}

/** How a new run is started. */
export interface StartRunOptions {
  prdFile: string;
  /**
   * The PRD's folder as its author knows it, when `prdFile` is a copy kept elsewhere (a queued run's
   * copy in the worker's store): `verify` working directories and evidence paths are relative to it.
   * Default: the folder of `prdFile`.
   */
  prdDir?: string;
  runId?: string;
  /** Only these story ids. */
  stories?: string[];
  failFast?: boolean;
  /** Stories at most in progress at once (`flow run --parallel`); default 1, one after another. */
  parallel?: number;
  /** Recorded so `flow resume` can rebuild the same environment. */
  record: Omit<RunOptions, "failFast" | "stories" | "parallel">;
}

/** How a run ended. `refused`: it could not start (invalid PRD, unreachable server…), see `error`. */
export interface RunSummary {
  /** Problems that did not change outcomes but need a person (a PRD that could not be updated). */
  warnings: string[];
  runId: string | undefined;
  status: "passed" | "failed" | "aborted" | "refused";
  counts: RunCounts;
  /** An unreachable server blocked a step. */
  environment: boolean;
  /** Why the run stopped before its remaining stories (a refused key), when it did. */
  halt?: string;
  error?: MeshflowError;
  /** Passed stories the PRD was left without marks for: `flow mark <runId>` writes them. */
  unmarked?: Unmarked;
  /** The run's folder, for messages. */
  location?: string;
}

/** A run in progress. */
export interface RunSession {
  /**
   * Resolves when the run ends. Never rejects: an exception anywhere in the run (a machine action, a
   * specialist, an enricher, a store write, the PRD write-back) ends it `failed` with `error` set and
   * a `run.finished` event carrying the error.
   */
  readonly done: Promise<RunSummary>;
  /** The run id (known once the preflight has passed). */
  runId(): string | undefined;
  /** Stops cleanly: no new tool call starts, calls in flight finish and are journaled; resumable. */
  abort(): void;
}

/** Starts a run of a PRD: preflight, then every selected story through the chief-analyst machine. */
export function startRun(deps: RunDependencies, options: StartRunOptions): Promise<RunSession> {
  return runMachine(deps, { kind: "start", options });
}

/**
 * Resumes an interrupted run (Ctrl-C, crash, kill -9) from its persisted snapshot: finished steps are
 * skipped, journaled calls replay their recorded results, a started non-idempotent call whose result
 * was never recorded blocks its step with `outcome_unknown`. Throws `run_not_found`, `run_locked`,
 * `prd_changed` or `usage` (the run already finished).
 */
export async function resumeRun(deps: RunDependencies, runId: string): Promise<RunSession> {
  const handle = await deps.store.open(runId);
  try {
    const record = handle.record();
    if (record.status === "passed" || record.status === "failed")
      throw new MeshflowError("usage", `run ${runId} already finished (${record.status}); nothing to resume`);
    const checked = await preflightRun(deps, record.prd, record.stories);
    if (checked.prdDigest !== record.prdDigest) {
      checked.plan.close();
      throw new MeshflowError(
        "prd_changed",
        `${record.prd} changed since run ${runId} started (stories, steps or calls differ); start a new run`,
      );
    }
    return await runMachine(deps, { kind: "resume", handle, checked, snapshot: handle.loadSnapshot() });
  } catch (error) {
    await handle.close();
    throw error;
  }
}

async function runMachine(deps: RunDependencies, mode: SessionMode): Promise<RunSession> {
  const runId = mode.kind === "resume" ? mode.handle.runId : (mode.options.runId ?? newRunId());
  if (mode.kind === "start") assertRunId(runId);
  else mode.handle.updateRecord({ status: "running" });
  const state = new SessionState(deps, runId);
  if (mode.kind === "resume") state.begin(mode.handle, mode.checked.plan);

  const services = {
    plan: () => state.requirePlan(),
    failFast: mode.kind === "start" ? mode.options.failFast === true : mode.handle.record().options.failFast,
    describeStep: (story: number, step: number) => {
      const prepared = state.requireRunner().prepare(state.storyOf(story), step);
      return { specialist: prepared.specialist, tools: prepared.tools };
    },
  };
  const parallel = mode.kind === "start" ? (mode.options.parallel ?? 1) : (mode.handle.record().options.parallel ?? 1);
  const saved = mode.kind === "resume" ? (mode.snapshot as PersistedRun | undefined) : undefined;
  // One story at a time (the default) keeps the flat machine: its transitions are the cheapest.
  const persisted =
    parallel > 1
      ? new PersistedActor(state, createParallelChief({ ...services, parallel }), saved)
      : new PersistedActor(state, createChiefAnalyst(services), saved);
  state.consults = machineConsults(persisted);

  if (mode.kind === "resume") await resumeAt(state, mode, saved);
  persisted.actor.start();
  if (saved) persisted.send({ type: "RESUME" });
  const drive =
    parallel > 1
      ? driveParallel(state, mode, persisted as PersistedActor<ParallelChief>)
      : driveMachine(state, mode, persisted as PersistedActor<ChiefAnalyst>);
  const done = drive
    .then(() => endRun(state, persisted as PersistedActor<ChiefAnalyst>))
    .catch((error: unknown) => endFailed(state, persisted.actor.getSnapshot().context, toMeshflowError(error)))
    .catch(
      (error: unknown): RunSummary => ({
        runId: state.handle?.runId,
        warnings: state.warnings,
        status: "failed",
        counts: { passed: 0, failed: 0, blocked: 0, skipped: 0 },
        environment: false,
        error: toMeshflowError(error),
      }),
    );

  return {
    done,
    runId: () => state.handle?.runId,
    abort() {
      state.controller.abort();
    },
  };
}

/**
 * Before a resumed run goes on: the discovered tools are set, the PRD marks of stories this run
 * already passed are written (they may not have been before it stopped), and `run.resumed` recorded.
 */
async function resumeAt(
  state: SessionState,
  mode: Extract<SessionMode, { kind: "resume" }>,
  saved: PersistedRun | undefined,
): Promise<void> {
  state.requireRunner().setTools(mode.checked.tools, mode.checked.failures);
  state.warnings.push(...mode.checked.warnings);
  let marked = false;
  const indexOf = new Map(mode.checked.plan.stories.map((s) => [s.id, s.index]));
  for (const event of await mode.handle.events())
    if (event.type === "story.finished" && event.status === "passed") {
      state.marks().mark(event.storyId, indexOf.get(event.storyId));
      marked = true;
    }
  if (marked) state.marks().flush();
  state.emit({
    type: "run.resumed",
    time: eventTime(),
    runId: state.runId,
    prd: mode.checked.plan.prdFile,
    state: describeSaved(saved),
  });
}
