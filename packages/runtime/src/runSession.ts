import { eventTime, MeshflowError, toMeshflowError } from "@meshflow/core";
import { createChiefAnalyst } from "./machine/chiefAnalyst.js";
import { preflightRun } from "./preflight.js";
import type { RunDependencies, RunSession, RunSummary, StartRunOptions } from "./RunDependencies.js";
import { driveMachine } from "./session/driveMachine.js";
import { endFailed, endRun } from "./session/endRun.js";
import { machineConsults } from "./session/machineConsults.js";
import { PersistedActor } from "./session/PersistedActor.js";
import type { SessionMode } from "./session/SessionMode.js";
import { SessionState } from "./session/SessionState.js";
import { describeSaved, type PersistedRun, upgradeSaved } from "./session/savedRun.js";
import { assertRunId, newRunId } from "./store/FileRunStore.js";

export type { RunDependencies, RunSession, RunSummary, StartRunOptions };

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

  const parallel = mode.kind === "start" ? (mode.options.parallel ?? 1) : (mode.handle.record().options.parallel ?? 1);
  const recorded = mode.kind === "start" ? mode.options.record : mode.handle.record().options;
  state.resolveConflicts = recorded.resolveConflicts;
  const machine = createChiefAnalyst({
    plan: () => state.requirePlan(),
    failFast: mode.kind === "start" ? mode.options.failFast === true : mode.handle.record().options.failFast,
    parallel,
    ...(recorded.parallelOrder ? { parallelOrder: recorded.parallelOrder } : {}),
    describeStep: (story: number, step: number) => {
      const prepared = state.requireRunner().prepare(state.storyOf(story), step);
      return { specialist: prepared.specialist, tools: prepared.tools };
    },
    emit: state.emit,
  });
  const saved = mode.kind === "resume" ? upgradeSaved(mode.snapshot, mode.checked.plan) : undefined;
  const persisted = new PersistedActor(state, machine, saved);
  state.consults = machineConsults(persisted, (storyId) =>
    state.requirePlan().stories.findIndex((s) => s.id === storyId),
  );

  if (mode.kind === "resume") await resumeAt(state, mode, saved);
  persisted.actor.start();
  if (saved) persisted.send({ type: "RESUME" });
  const done = driveMachine(state, mode, persisted)
    .then(() => endRun(state, persisted))
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
    state: describeSaved(saved, (story) => mode.checked.plan.stories[story]?.id ?? String(story)),
  });
}
