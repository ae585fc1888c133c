import type { RunEvent } from "@meshflow/core";
import type { QueuedStoryReport, RunBoard } from "@meshflow/queue";
import { storyReports } from "@meshflow/runtime/host";

/** Events after which a story's report changes in a way `flow status --redis` should show. */
const REPORTED: ReadonlySet<RunEvent["type"]> = new Set([
  "story.started",
  "step.started",
  "step.finished",
  "model.turn",
  "approval.requested",
  "approval.decided",
  "gate.finished",
  "story.finished",
]);

/**
 * Turns a queued run's events into story reports on the run board, as they happen: the same reports
 * `flow status` builds from a local run's events. Writes keep their order.
 */
export class StoryTracker {
  readonly #board: RunBoard;
  readonly #runId: string;
  readonly #worker: string;
  readonly #events = new Map<string, RunEvent[]>();
  readonly #reports = new Map<string, QueuedStoryReport>();
  #writing: Promise<void> = Promise.resolve();
  #failure: unknown;

  constructor(board: RunBoard, runId: string, worker: string) {
    this.#board = board;
    this.#runId = runId;
    this.#worker = worker;
  }

  onEvent(event: RunEvent): void {
    if (!("storyId" in event)) return;
    const storyId = event.storyId;
    const events = this.#events.get(storyId) ?? [];
    if (!events.length) this.#events.set(storyId, events);
    events.push(event);
    if (!REPORTED.has(event.type)) return;
    const [report] = storyReports({ stories: [storyId] }, events);
    if (!report) return;
    const queued: QueuedStoryReport = {
      ...report,
      steps: report.steps.map((s) => ({ ...s, refusals: s.refusals.map((r) => ({ ...r })) })),
      worker: this.#worker,
      ...(report.status === "passed"
        ? { note: `Passed in meshflow queued run ${this.#runId} (worker ${this.#worker}).` }
        : {}),
    };
    this.#reports.set(storyId, queued);
    this.#writing = this.#writing
      .then(() => this.#board.story(this.#runId, queued))
      .catch((error: unknown) => {
        this.#failure ??= error;
      });
  }

  /** The reports so far, in the order stories started. */
  reports(): QueuedStoryReport[] {
    return [...this.#reports.values()];
  }

  /** Waits for every report to be written; throws the first write failure. */
  async flush(): Promise<void> {
    await this.#writing;
    if (this.#failure) throw this.#failure;
  }
}
