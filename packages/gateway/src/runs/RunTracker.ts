import { type RunEvent, toMeshflowError } from "@meshflow/core";
import type { RunSession, RunSummary } from "@meshflow/runtime";

/** A run this gateway started. */
export interface TrackedRun {
  runId: string;
  prd: string;
  startedAt: string;
  session: RunSession;
  /** Set once the run ended (or was refused before it started). */
  summary?: RunSummary;
  /** The newest event of the run. */
  last?: RunEvent;
  events: number;
}

/** The runs started through the gateway, in this process: the run store holds the rest. */
export class RunTracker {
  private readonly runs = new Map<string, TrackedRun>();

  add(run: Omit<TrackedRun, "events">): TrackedRun {
    const tracked: TrackedRun = { ...run, events: 0 };
    this.runs.set(run.runId, tracked);
    // `done` never rejects; should an embedder's session break that promise, the gateway records the
    // run as failed instead of dying of an unhandled rejection.
    run.session.done.then(
      (summary) => {
        tracked.summary = summary;
      },
      (error: unknown) => {
        tracked.summary = {
          runId: run.runId,
          warnings: [],
          status: "failed",
          counts: { passed: 0, failed: 0, blocked: 0, skipped: 0 },
          environment: false,
          error: toMeshflowError(error),
        };
      },
    );
    return tracked;
  }

  event(runId: string, event: RunEvent): void {
    const run = this.runs.get(runId);
    if (!run) return;
    run.last = event;
    run.events++;
  }

  get(runId: string): TrackedRun | undefined {
    return this.runs.get(runId);
  }

  /** Runs still going. */
  active(): TrackedRun[] {
    return [...this.runs.values()].filter((r) => !r.summary);
  }

  /** Stops every active run cleanly (calls in flight finish and are journaled; resumable); their ids. */
  abortAll(): string[] {
    const active = this.active();
    for (const run of active) run.session.abort();
    return active.map((r) => r.runId);
  }

  /** Waits for every run to end, at most `timeoutMs` (a call in flight may wait on its server for long). */
  async settle(timeoutMs = 10_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.runs.values()].map((r) => r.session.done)),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
  }
}
