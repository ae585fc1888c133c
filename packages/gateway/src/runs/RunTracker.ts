import { type RunEvent, toMeshflowError } from "@meshflow/core";
import type { RunSession, RunSummary } from "@meshflow/runtime/host";

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

/** A run that ended: what the run store cannot tell (a refusal before the run was stored, warnings). */
export type FinishedRun = Omit<TrackedRun, "session" | "last"> & { summary: RunSummary; last?: undefined };

/** How many ended runs are remembered beyond the run store (the oldest are forgotten first). */
const DEFAULT_FINISHED_RUNS_KEPT = 100;

/**
 * The runs started through the gateway, in this process: the run store holds the rest. A run that
 * ends is pruned to its summary (its session, machine and tool plane are let go), and only the
 * newest {@link DEFAULT_FINISHED_RUNS_KEPT} summaries are kept, so a long-lived `flow serve` does not
 * grow with every run it started; `flow_run_status` reads older ones from the run store.
 */
export class RunTracker {
  private readonly runs = new Map<string, TrackedRun>();
  private readonly finished = new Map<string, FinishedRun>();

  constructor(private readonly finishedKept = DEFAULT_FINISHED_RUNS_KEPT) {}

  add(run: Omit<TrackedRun, "events">): TrackedRun {
    const tracked: TrackedRun = { ...run, events: 0 };
    this.runs.set(run.runId, tracked);
    // `done` never rejects; should an embedder's session break that promise, the gateway records the
    // run as failed instead of dying of an unhandled rejection. A finished run is kept as its summary.
    const settle = (summary: RunSummary) => {
      tracked.summary = summary;
      this.runs.delete(run.runId);
      const { session: _session, last: _last, ...kept } = tracked;
      this.finished.set(run.runId, { ...kept, summary });
      for (const id of this.finished.keys()) {
        if (this.finished.size <= this.finishedKept) break;
        this.finished.delete(id);
      }
    };
    run.session.done.then(settle, (error: unknown) =>
      settle({
        runId: run.runId,
        warnings: [],
        status: "failed",
        counts: { passed: 0, failed: 0, blocked: 0, skipped: 0 },
        environment: false,
        error: toMeshflowError(error),
      }),
    );
    return tracked;
  }

  /** Runs held in memory: active ones and the remembered summaries of ended ones. */
  size(): { active: number; finished: number } {
    return { active: this.runs.size, finished: this.finished.size };
  }

  event(runId: string, event: RunEvent): void {
    const run = this.runs.get(runId);
    if (!run) return;
    run.last = event;
    run.events++;
  }

  get(runId: string): TrackedRun | FinishedRun | undefined {
    return this.runs.get(runId) ?? this.finished.get(runId);
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
