import { relative } from "node:path";
import {
  type McpConfig,
  MeshflowError,
  type RoutingTable,
  type RunEvent,
  type StepStatus,
  toMeshflowError,
} from "@meshflow/core";
import { type Actor, createActor, type Snapshot } from "xstate";
import { runVerify } from "./gate/runVerify.js";
import { writeStoryPassed } from "./gate/writeStoryPassed.js";
import { StepRunner } from "./internal/StepRunner.js";
import { type ChiefContext, createChiefAnalyst, type RunCounts } from "./machine/chiefAnalyst.js";
import { type Preflight, preflight } from "./preflight.js";
import type { RunPlan } from "./RunPlan.js";
import type { Specialist } from "./specialists/defineSpecialist.js";
import { assertRunId, newRunId } from "./store/FileRunStore.js";
import type { RunOptions, RunRecord } from "./store/RunRecord.js";
import type { RunHandle, RunStore } from "./store/RunStore.js";
import type { ToolPlane } from "./ToolPlane.js";

/** What a run needs: tools, a store, specialists, routing and the MCP config. */
export interface RunDependencies {
  plane: ToolPlane;
  store: RunStore;
  specialists: ReadonlyMap<string, Specialist>;
  routing: RoutingTable;
  mcpConfig: McpConfig;
  /** Every run event, after it is stored. */
  onEvent?: (event: RunEvent) => void;
}

/** How a new run is started. */
export interface StartRunOptions {
  prdFile: string;
  runId?: string;
  /** Only these story ids. */
  stories?: string[];
  failFast?: boolean;
  /** Recorded so `flow resume` can rebuild the same environment. */
  record: Omit<RunOptions, "failFast" | "stories">;
}

/** How a run ended. `refused`: it could not start (invalid PRD, unreachable server…), see `error`. */
export interface RunSummary {
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
  /** Resolves when the run ends (never rejects). */
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

/** Starts a run of a PRD: preflight, then every selected story through the chief-analyst machine. */
export function startRun(deps: RunDependencies, options: StartRunOptions): RunSession {
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
    const checked = await preflight({
      prdFile: record.prd,
      routing: deps.routing,
      mcpConfig: deps.mcpConfig,
      specialists: new Set(deps.specialists.keys()),
      stories: record.stories,
      discover: deps.plane,
    });
    if (checked.prdDigest !== record.prdDigest)
      throw new MeshflowError(
        "prd_changed",
        `${record.prd} changed since run ${runId} started (stories, steps or calls differ); start a new run`,
      );
    return runMachine(deps, { kind: "resume", handle, checked, snapshot: handle.loadSnapshot() });
  } catch (error) {
    await handle.close();
    throw error;
  }
}

function runMachine(deps: RunDependencies, mode: Mode): RunSession {
  const controller = new AbortController();
  const runId = mode.kind === "resume" ? mode.handle.runId : (mode.options.runId ?? newRunId());
  if (mode.kind === "start") assertRunId(runId);
  else mode.handle.updateRecord({ status: "running" });
  let handle: RunHandle | undefined = mode.kind === "resume" ? mode.handle : undefined;
  let plan: RunPlan | undefined = mode.kind === "resume" ? mode.checked.plan : undefined;
  let runner: StepRunner | undefined;
  let preflightError: MeshflowError | undefined;
  let aborting = false;

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
      log: (entry) => h.log(entry),
      signal: controller.signal,
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
    failFast: mode.kind === "start" ? mode.options.failFast === true : (handle?.record().options.failFast ?? false),
    async preflight() {
      if (mode.kind === "resume") return { prd: mode.checked.plan.prdFile, stories: mode.handle.record().stories };
      const { options } = mode;
      try {
        const checked = await preflight({
          prdFile: options.prdFile,
          routing: deps.routing,
          mcpConfig: deps.mcpConfig,
          specialists: new Set(deps.specialists.keys()),
          stories: options.stories,
          discover: deps.plane,
        });
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
        plan = checked.plan;
        runner = makeRunner(handle);
        return { prd: options.prdFile, stories: record.stories };
      } catch (error) {
        preflightError = toMeshflowError(error);
        throw preflightError;
      }
    },
    prepare: ({ story, step }) => requireRunner().prepare(storyOf(story), step),
    think: ({ story, step, memory }) => requireRunner().think(storyOf(story), step, memory),
    gate: async ({ story }) => runVerify(storyOf(story).story.verify ?? [], requirePlan().prdDir, controller.signal),
    async conclude({ story, status, summary, steps, gate }) {
      const planned = storyOf(story);
      const h = handle;
      if (!h) throw new MeshflowError("internal", "the run has no store");
      const evidence = {
        runId: h.runId,
        storyId: planned.story.id,
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
        })),
        gate: gate ?? null,
        time: now(),
      };
      const file = h.writeEvidence(planned.story.id, evidence);
      if (status !== "passed" || !gate?.passed) return { status, summary };
      // Only here, after every step and the gate passed, does a story become `passes: true`.
      const prd = requirePlan().prdFile;
      const shown = relative(requirePlan().prdDir, file);
      try {
        writeStoryPassed(prd, planned.story.id, `Passed in meshflow run ${h.runId} (evidence: ${shown}).`);
        return { status, summary };
      } catch (error) {
        return {
          status: "failed" as StepStatus,
          summary: `${summary}; PRD not updated: ${toMeshflowError(error).message}`,
        };
      }
    },
  });

  const snapshot = mode.kind === "resume" ? (mode.snapshot as Snapshot<unknown> | undefined) : undefined;
  const actor: Actor<typeof machine> = createActor(machine, {
    input: { runId },
    ...(snapshot ? { snapshot: snapshot as never } : {}),
  });
  actor.on("*", (event) => emit(event as RunEvent));
  actor.subscribe({
    next: (state) => {
      // Final snapshots are never persisted: an aborted run resumes from its last live state.
      if (state.status === "active" && handle && !aborting) handle.saveSnapshot(actor.getPersistedSnapshot());
    },
    error: () => {},
  });

  const done = new Promise<RunSummary>((resolveDone) => {
    actor.subscribe({
      complete: () => void finish().then(resolveDone),
      error: (error) => {
        preflightError ??= toMeshflowError(error);
        void finish().then(resolveDone);
      },
    });
  });

  async function finish(): Promise<RunSummary> {
    const state = actor.getSnapshot();
    const context: ChiefContext = state.context;
    await runner?.drain();
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
      handle.updateRecord({
        status: status === "refused" ? "failed" : status,
        counts: context.counts,
      });
      await handle.close();
    }
    return {
      runId: handle?.runId,
      status,
      counts: context.counts,
      environment: context.environment,
      ...(error ? { error } : {}),
      ...(handle ? { location: handle.location } : {}),
    };
  }

  if (mode.kind === "resume")
    emit({
      type: "run.resumed",
      time: now(),
      runId: mode.handle.runId,
      prd: mode.checked.plan.prdFile,
      state: describe(snapshot),
    });
  actor.start();

  return {
    done,
    runId: () => handle?.runId,
    abort() {
      if (aborting) return;
      aborting = true;
      controller.abort();
      actor.send({ type: "ABORT" });
    },
  };
}

function describe(snapshot: Snapshot<unknown> | undefined): string {
  const value = (snapshot as { value?: unknown } | undefined)?.value;
  return value === undefined ? "start" : JSON.stringify(value);
}
