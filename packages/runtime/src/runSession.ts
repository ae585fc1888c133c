import { relative, resolve } from "node:path";
import {
  type McpConfig,
  MeshflowError,
  type ModelCatalog,
  type RoutingTable,
  type RunEvent,
  toMeshflowError,
} from "@meshflow/core";
import { type Actor, createActor, type StateValue } from "xstate";
import { runVerify } from "./gate/runVerify.js";
import type { PassMark } from "./gate/writeStoryPassed.js";
import { PrdWriter } from "./internal/PrdWriter.js";
import { StepRunner } from "./internal/StepRunner.js";
import type { ConfirmDestructive } from "./internal/toolCall.js";
import { reusableVerifies } from "./internal/verifiedCommands.js";
import { type ChiefContext, type ChiefEvent, createChiefAnalyst, type RunCounts } from "./machine/chiefAnalyst.js";
import { type Preflight, preflightRun } from "./preflight.js";
import type { RunPlan } from "./RunPlan.js";
import type { Specialist } from "./specialists/defineSpecialist.js";
import { assertRunId, newRunId } from "./store/FileRunStore.js";
import type { RunOptions, RunRecord } from "./store/RunRecord.js";
import type { RunHandle, RunStore } from "./store/RunStore.js";
import type { ToolPlane } from "./ToolPlane.js";
import { afterStory, hookedStep, type StoryHooks } from "./workflow/StoryHooks.js";

/** What a run needs: tools, a store, specialists, routing and the MCP config. */
export interface RunDependencies {
  plane: ToolPlane;
  store: RunStore;
  specialists: ReadonlyMap<string, Specialist>;
  routing: RoutingTable;
  mcpConfig: McpConfig;
  /** Every run event, after it is stored. */
  onEvent?: (event: RunEvent) => void;
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
  /** Recorded so `flow resume` can rebuild the same environment. */
  record: Omit<RunOptions, "failFast" | "stories">;
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
  error?: MeshflowError;
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

type Mode =
  | { kind: "start"; options: StartRunOptions }
  | { kind: "resume"; handle: RunHandle; checked: Preflight; snapshot: unknown };

const now = () => new Date().toISOString();

/** What `snapshot.ndjson` holds per line: the machine's state value and context. */
interface PersistedRun {
  value: StateValue;
  context: ChiefContext;
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
    if (checked.prdDigest !== record.prdDigest)
      throw new MeshflowError(
        "prd_changed",
        `${record.prd} changed since run ${runId} started (stories, steps or calls differ); start a new run`,
      );
    return await runMachine(deps, { kind: "resume", handle, checked, snapshot: handle.loadSnapshot() });
  } catch (error) {
    await handle.close();
    throw error;
  }
}

async function runMachine(deps: RunDependencies, mode: Mode): Promise<RunSession> {
  const controller = new AbortController();
  /** Resolves to undefined on abort, so the driver does not wait for a think() that ignores its signal. */
  const untilAborted = <T>(pending: Promise<T>): Promise<T | undefined> => {
    const { signal } = controller;
    if (signal.aborted) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      const onAbort = () => resolve(undefined);
      signal.addEventListener("abort", onAbort, { once: true });
      pending.then(
        (value) => {
          signal.removeEventListener("abort", onAbort);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener("abort", onAbort);
          reject(error);
        },
      );
    });
  };
  const runId = mode.kind === "resume" ? mode.handle.runId : (mode.options.runId ?? newRunId());
  if (mode.kind === "start") assertRunId(runId);
  else mode.handle.updateRecord({ status: "running" });
  let handle: RunHandle | undefined = mode.kind === "resume" ? mode.handle : undefined;
  let plan: RunPlan | undefined = mode.kind === "resume" ? mode.checked.plan : undefined;
  let runner: StepRunner | undefined;
  let preflightError: MeshflowError | undefined;
  const warnings: string[] = [];
  let writer: PrdWriter | undefined;
  // Only the completion gate marks stories as passed, through this writer.
  const prdWriter = (): PrdWriter => {
    writer ??= new PrdWriter(requirePlan().prdFile, {
      onError: (error, marks) =>
        warnings.push(
          `${requirePlan().prdFile}: could not mark ${marks.map((m) => m.storyId).join(", ")} as passed: ${toMeshflowError(error).message}`,
        ),
    });
    return writer;
  };
  const passMark = (h: RunHandle, storyId: string): PassMark => ({
    storyId,
    note: `Passed in meshflow run ${h.runId} (evidence: ${relative(requirePlan().prdDir, h.evidenceFile)}).`,
  });

  const emit = (event: RunEvent) => {
    handle?.appendEvent(event);
    deps.onEvent?.(event);
  };
  const makeRunner = (h: RunHandle) =>
    new StepRunner({
      runId: h.runId,
      plane: deps.plane,
      specialists: deps.specialists,
      journal: h.journal,
      emit,
      log: (entry) => {
        h.log(entry);
        deps.hooks?.onLog?.(entry);
      },
      signal: controller.signal,
      ...(deps.confirmDestructive ? { confirmDestructive: deps.confirmDestructive } : {}),
      ...(deps.models ? { models: deps.models } : {}),
    });
  if (handle) runner = makeRunner(handle);

  const requirePlan = (): RunPlan => {
    if (!plan) throw new MeshflowError("internal", "the run has no plan yet");
    return plan;
  };
  const requireRunner = (): StepRunner => {
    if (!runner) throw new MeshflowError("internal", "the run has not started");
    return runner;
  };
  const storyOf = (index: number) => {
    const planned = requirePlan().stories[index];
    if (!planned) throw new MeshflowError("internal", `no story at position ${index}`);
    return planned;
  };

  const machine = createChiefAnalyst({
    plan: requirePlan,
    failFast: mode.kind === "start" ? mode.options.failFast === true : mode.handle.record().options.failFast,
    describeStep: (story, step) => {
      const prepared = requireRunner().prepare(storyOf(story), step);
      return { specialist: prepared.specialist, tools: prepared.tools };
    },
  });

  /** Start mode: load, validate, plan, discover, then open the run in the store. */
  async function startPreflight(options: StartRunOptions): Promise<ChiefEvent> {
    try {
      const checked = await preflightRun(deps, options.prdFile, options.stories);
      const time = now();
      const record: RunRecord = {
        runId,
        prd: checked.plan.prdFile,
        prdDigest: checked.prdDigest,
        stories: checked.plan.stories.map((s) => s.story.id),
        options: { ...options.record, failFast: options.failFast === true, stories: options.stories },
        status: "running",
        createdAt: time,
        updatedAt: time,
        pid: process.pid,
        counts: { passed: 0, failed: 0, blocked: 0, skipped: 0 },
      };
      handle = await deps.store.create(record);
      plan = options.prdDir ? { ...checked.plan, prdDir: resolve(options.prdDir) } : checked.plan;
      warnings.push(...checked.warnings);
      runner = makeRunner(handle);
      runner.setTools(checked.tools, checked.failures);
      return { type: "PREFLIGHT_DONE", prd: options.prdFile, stories: record.stories };
    } catch (error) {
      preflightError = toMeshflowError(error);
      return { type: "PREFLIGHT_FAILED", code: preflightError.code, message: preflightError.message };
    }
  }

  async function conclude(context: ChiefContext): Promise<ChiefEvent> {
    const planned = storyOf(context.story);
    const h = handle;
    if (!h) throw new MeshflowError("internal", "the run has no store");
    const { storyStatus: status, storySummary: summary, steps, gate } = context;
    h.writeEvidence(planned.story.id, {
      runId: h.runId,
      title: planned.story.title,
      status,
      summary,
      steps: steps.map((s) => ({
        step: s.step,
        specialist: s.specialist,
        status: s.status,
        summary: s.summary,
        calls: s.calls,
        evidence: s.evidence,
        ...(s.tokens ? { tokens: s.tokens } : {}),
      })),
      gate: gate ?? null,
      time: now(),
    });
    warnings.push(
      ...(await afterStory(deps.hooks, { runId, plan: requirePlan(), planned, status, summary, steps, gate })),
    );
    // Only here, after every step and the gate passed, does a story become `passes: true`.
    if (status === "passed" && gate?.passed) prdWriter().mark(passMark(h, planned.story.id));
    requireRunner().forget(planned);
    return { type: "CONCLUDED", status, summary };
  }

  /** The work the machine's current state asks for, resolving to the event that reports its result. */
  function work(state: { value: unknown; context: ChiefContext }): Promise<ChiefEvent> | undefined {
    const { value, context } = state;
    if (value === "preflight")
      return mode.kind === "start"
        ? startPreflight(mode.options)
        : Promise.resolve({
            type: "PREFLIGHT_DONE",
            prd: mode.checked.plan.prdFile,
            stories: mode.handle.record().stories,
          });
    if (value === "working") {
      const steps = context.steps.map((s) => ({
        step: s.step,
        specialist: s.specialist,
        outcome: { status: s.status, summary: s.summary, evidence: s.evidence },
      }));
      const planned = storyOf(context.story);
      return hookedStep(deps.hooks, requirePlan(), planned, { runId, step: context.step, steps }, (memory) =>
        requireRunner().think(planned, context.step, memory),
      ).then((result) => ({ type: "STEP_DONE", result }));
    }
    if (value === "gating")
      return runVerify(
        storyOf(context.story).story.verify ?? [],
        requirePlan().prdDir,
        controller.signal,
        // Commands a step already ran and passed, with nothing written since, are not run again.
        reusableVerifies(context.steps),
      ).then((gate) => ({ type: "GATE_DONE", gate }));
    if (value === "concluding") return conclude(context);
    return undefined;
  }

  // The machine has no children and no history states: its state value and context are its whole
  // state, persisted as such and restored with `resolveState`.
  const saved = mode.kind === "resume" ? (mode.snapshot as PersistedRun | undefined) : undefined;
  const snapshot = saved ? machine.resolveState({ value: saved.value, context: saved.context }) : undefined;
  const actor: Actor<typeof machine> = createActor(machine, {
    input: { runId },
    ...(snapshot ? { snapshot } : {}),
  });
  // xstate rethrows an exception of an action or guard as an uncaught error unless someone listens:
  // here it ends the run instead of the process.
  let crashed: MeshflowError | undefined;
  actor.subscribe({ error: (error) => (crashed ??= toMeshflowError(error)) });
  // The machine's events are held until the state they describe is persisted: whoever sees
  // `step.finished` (stdout, the events file) can count on a resume not running that step again.
  let held: RunEvent[] = [];
  actor.on("*", (event) => {
    handle?.appendEvent(event as RunEvent);
    held.push(event as RunEvent);
  });
  /** Sends an event to the machine, persists the state it leads to, then publishes its events. */
  const transition = (event: ChiefEvent): void => {
    actor.send(event);
    const state = actor.getSnapshot();
    if (crashed) throw crashed;
    if (handle && state.status === "active")
      handle.saveSnapshot({ value: state.value, context: state.context } satisfies PersistedRun);
    const out = held;
    held = [];
    for (const e of out) deps.onEvent?.(e);
  };

  /** Drives the machine: does what its state asks, reports back, persists the snapshot after each step. */
  async function drive(): Promise<void> {
    try {
      await driveMachine();
    } catch (error) {
      crashed ??= toMeshflowError(error);
    }
  }

  async function driveMachine(): Promise<void> {
    let lastStory = -1;
    for (;;) {
      if (controller.signal.aborted) {
        // The calls in flight finish and are journaled before the run is marked aborted, so
        // `run.finished` is the last event and a resume replays them.
        await runner?.drain();
        transition({ type: "ABORT" });
        return;
      }
      const state = actor.getSnapshot();
      if (state.status !== "active") return;
      if (state.context.story !== lastStory) {
        // Once per story, let the event loop run: Ctrl-C, timers and the garbage collector's idle
        // work must not wait for a run whose specialists never do I/O.
        lastStory = state.context.story;
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (controller.signal.aborted) continue;
      }
      const pending = work(state);
      if (!pending) {
        transition({ type: "FAILED", code: "internal", message: `no work for state ${JSON.stringify(state.value)}` });
        return;
      }
      let event: ChiefEvent | undefined;
      try {
        // An abort does not wait for a think() that ignores its signal.
        event = await untilAborted(pending);
      } catch (error) {
        const failure = toMeshflowError(error);
        event = { type: "FAILED", code: failure.code, message: failure.message };
      }
      if (event && !controller.signal.aborted) transition(event);
    }
  }

  async function finish(): Promise<RunSummary> {
    const state = actor.getSnapshot();
    const context: ChiefContext = state.context;
    try {
      await runner?.drain();
      writer?.close();
    } catch (error) {
      crashed ??= toMeshflowError(error);
    }
    if (crashed || (handle && state.value === "refused")) return failed(context, crashed);
    const value = state.value;
    const status: RunSummary["status"] =
      value === "aborted"
        ? "aborted"
        : value === "finished"
          ? context.counts.failed + context.counts.blocked > 0
            ? "failed"
            : "passed"
          : "refused";
    const error =
      status === "refused"
        ? (preflightError ??
          new MeshflowError("internal", context.error?.message ?? "the run stopped unexpectedly", {
            details: { code: context.error?.code },
          }))
        : undefined;
    if (handle) {
      handle.updateRecord({ status: status === "refused" ? "failed" : status, counts: context.counts });
      await handle.close();
    }
    return {
      runId: handle?.runId,
      warnings,
      status,
      counts: context.counts,
      environment: context.environment,
      ...(error ? { error } : {}),
      ...(handle ? { location: handle.location } : {}),
    };
  }

  /**
   * Ends a run that had started, or was about to, with an error: recorded `failed`, a `run.finished`
   * carrying the error (the machine never got to emit its own), the store closed, whatever fails.
   */
  async function failed(context: ChiefContext, cause: MeshflowError | undefined): Promise<RunSummary> {
    const error =
      cause ??
      new MeshflowError("internal", context.error?.message ?? "the run stopped unexpectedly", {
        details: { code: context.error?.code },
      });
    const counts = context.counts;
    const h = handle;
    const attempt = (write: () => void) => {
      try {
        write();
      } catch (failure) {
        warnings.push(`could not record the run's failure: ${toMeshflowError(failure).message}`);
      }
    };
    const finished: RunEvent = {
      type: "run.finished",
      time: now(),
      runId,
      status: "failed",
      ...counts,
      error: { code: error.code, message: error.message },
    };
    if (h) attempt(() => h.appendEvent(finished));
    attempt(() => deps.onEvent?.(finished));
    if (h) {
      attempt(() => h.updateRecord({ status: "failed", counts }));
      await h
        .close()
        .catch((failure: unknown) =>
          warnings.push(`could not close the run's store: ${toMeshflowError(failure).message}`),
        );
    }
    return {
      runId: h?.runId,
      warnings,
      status: h ? "failed" : "refused",
      counts,
      environment: context.environment,
      error,
      ...(h ? { location: h.location } : {}),
    };
  }

  if (mode.kind === "resume") {
    runner?.setTools(mode.checked.tools, mode.checked.failures);
    warnings.push(...mode.checked.warnings);
    // Stories this run already passed whose PRD mark may not have been written before it stopped.
    const h = mode.handle;
    for (const event of await h.events())
      if (event.type === "story.finished" && event.status === "passed") prdWriter().mark(passMark(h, event.storyId));
    writer?.flush();
    emit({
      type: "run.resumed",
      time: now(),
      runId,
      prd: mode.checked.plan.prdFile,
      state: saved ? JSON.stringify(saved.value) : "start",
    });
  }
  actor.start();
  if (snapshot) transition({ type: "RESUME" });
  const done = drive()
    .then(finish)
    .catch((error: unknown) => failed(actor.getSnapshot().context, toMeshflowError(error)))
    .catch(
      (error: unknown): RunSummary => ({
        runId: handle?.runId,
        warnings,
        status: "failed",
        counts: { passed: 0, failed: 0, blocked: 0, skipped: 0 },
        environment: false,
        error: toMeshflowError(error),
      }),
    );

  return {
    done,
    runId: () => handle?.runId,
    abort() {
      controller.abort();
    },
  };
}
