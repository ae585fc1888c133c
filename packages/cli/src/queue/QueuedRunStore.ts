import { isMeshflowError, type RunEvent } from "@meshflow/core";
import type { CallJournal } from "@meshflow/queue";
import type { ApprovalBook, FileRunStore, RunHandle, RunRecord, RunStore } from "@meshflow/runtime/host";

/**
 * The run store of a queued run on a worker: the worker's own file store holds its events, snapshots,
 * evidence and log (`<store>/runs/<runId>/`, or `<runId>.a<n>` when this machine ran an earlier
 * attempt), while the call journal is the run's journal in Redis, shared with every worker, so an
 * attempt on another machine replays the calls this one recorded.
 */
export class QueuedRunStore implements RunStore {
  readonly #files: FileRunStore;
  readonly #journal: CallJournal;
  readonly #approvals: ApprovalBook | undefined;

  /** `approvals`: the queued run's approvals book in Redis, shared like the journal. */
  constructor(files: FileRunStore, journal: CallJournal, approvals?: ApprovalBook) {
    this.#files = files;
    this.#journal = journal;
    this.#approvals = approvals;
  }

  async create(record: RunRecord): Promise<RunHandle> {
    for (let attempt = 1; ; attempt++) {
      const local = attempt === 1 ? record.runId : `${record.runId}.a${attempt}`;
      try {
        const handle = await this.#files.create({ ...record, runId: local });
        return new QueuedRunHandle(handle, record.runId, this.#journal, this.#approvals);
      } catch (error) {
        const taken = isMeshflowError(error) && error.code === "usage" && error.message.includes("already exists");
        if (taken && attempt < 100) continue;
        throw error;
      }
    }
  }

  open(runId: string): Promise<RunHandle> {
    return this.#files.open(runId);
  }

  read(runId: string): Promise<{ record: RunRecord; events: RunEvent[] }> {
    return this.#files.read(runId);
  }

  list(): Promise<RunRecord[]> {
    return this.#files.list();
  }
}

/** A local run folder under the queued run's id, with the shared Redis journal. */
class QueuedRunHandle implements RunHandle {
  readonly runId: string;
  readonly journal: CallJournal;
  readonly approvals: ApprovalBook | undefined;
  readonly #inner: RunHandle;

  constructor(inner: RunHandle, runId: string, journal: CallJournal, approvals: ApprovalBook | undefined) {
    this.#inner = inner;
    this.runId = runId;
    this.journal = journal;
    this.approvals = approvals;
  }

  get location(): string {
    return this.#inner.location;
  }

  get evidenceFile(): string {
    return this.#inner.evidenceFile;
  }

  record(): RunRecord {
    return this.#inner.record();
  }

  updateRecord(patch: Partial<RunRecord>): void {
    this.#inner.updateRecord(patch);
  }

  appendEvent(event: RunEvent): void {
    this.#inner.appendEvent(event);
  }

  events(): Promise<RunEvent[]> {
    return this.#inner.events();
  }

  saveSnapshot(snapshot: unknown): void {
    // The local handle flushes its own files first; the shared journal is this handle's.
    this.journal.flush?.();
    this.#inner.saveSnapshot(snapshot);
  }

  flush(): void {
    this.journal.flush?.();
    this.#inner.flush();
  }

  loadSnapshot(): unknown {
    return this.#inner.loadSnapshot();
  }

  writeEvidence(storyId: string, evidence: Record<string, unknown>): string {
    return this.#inner.writeEvidence(storyId, evidence);
  }

  log(entry: Record<string, unknown>): void {
    this.#inner.log(entry);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}
