import { eventTime, type MeshflowError, type RunEvent, toMeshflowError } from "@meshflow/core";
import type { ChiefContext } from "../machine/chiefAnalyst.js";

/** What ending a run reads of the machine's context. */
type RunTallies = Pick<ChiefContext, "counts" | "environment" | "error" | "halt">;

import type { RunSummary } from "../RunDependencies.js";
import { closeWorkspaces } from "./landStory.js";
import { type PersistedActor, unexpectedStop } from "./PersistedActor.js";
import type { SessionState } from "./SessionState.js";

/** Ends a run whose machine stopped: calls in flight settled, the record updated, the store closed. */
export async function endRun(state: SessionState, persisted: PersistedActor): Promise<RunSummary> {
  const snapshot = persisted.actor.getSnapshot();
  const context: RunTallies = snapshot.context;
  try {
    await state.settle();
    state.outbox.flush();
  } catch (error) {
    persisted.fail(error);
  }
  const { handle } = state;
  if (persisted.crashed || (handle && snapshot.value === "refused"))
    return endFailed(state, context, persisted.crashed);
  const value = snapshot.value;
  const status: RunSummary["status"] =
    value === "aborted"
      ? "aborted"
      : value === "finished"
        ? context.counts.failed + context.counts.blocked > 0
          ? "failed"
          : "passed"
        : "refused";
  const error = status === "refused" ? (state.preflightError ?? unexpectedStop(context)) : undefined;
  const worktrees = await closeWorkspaces(state, value === "finished");
  if (handle) {
    handle.updateRecord({
      status: status === "refused" ? "failed" : status,
      counts: context.counts,
      unmarked: state.unmarked?.stories,
      ...(worktrees ? { worktrees } : {}),
    });
    await handle.close();
  }
  return {
    runId: handle?.runId,
    warnings: state.warnings,
    status,
    counts: context.counts,
    environment: context.environment,
    ...(context.halt !== undefined ? { halt: context.halt } : {}),
    ...(state.paused && status === "aborted" ? { paused: state.paused } : {}),
    ...(error ? { error } : {}),
    ...(state.unmarked ? { unmarked: state.unmarked } : {}),
    ...(handle ? { location: handle.location } : {}),
  };
}

/**
 * Ends a run that had started, or was about to, with an error: recorded `failed`, a `run.finished`
 * carrying the error (the machine never got to emit its own), the store closed, whatever fails.
 */
export async function endFailed(
  state: SessionState,
  context: RunTallies,
  cause: MeshflowError | undefined,
): Promise<RunSummary> {
  const error = cause ?? unexpectedStop(context);
  const { counts } = context;
  const { handle: h, warnings } = state;
  const attempt = (write: () => void) => {
    try {
      write();
    } catch (failure) {
      warnings.push(`could not record the run's failure: ${toMeshflowError(failure).message}`);
    }
  };
  const finished: RunEvent = {
    type: "run.finished",
    time: eventTime(),
    runId: state.runId,
    status: "failed",
    ...counts,
    error: { code: error.code, message: error.message },
  };
  // What the run did before it failed goes out before its end.
  attempt(() => state.outbox.flush());
  attempt(() => state.deps.onEmitted?.(finished));
  if (h) attempt(() => h.appendEvent(finished));
  attempt(() => state.deps.onEvent?.(finished));
  const worktrees = await closeWorkspaces(state, false);
  if (h) {
    attempt(() =>
      h.updateRecord({
        status: "failed",
        counts,
        unmarked: state.unmarked?.stories,
        ...(worktrees ? { worktrees } : {}),
      }),
    );
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
    ...(state.unmarked ? { unmarked: state.unmarked } : {}),
    ...(h ? { location: h.location } : {}),
  };
}
