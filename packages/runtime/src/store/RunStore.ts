import type { RunEvent } from "@meshflow/core";
import type { CallJournal } from "@meshflow/mcp";
import type { ApprovalBook } from "../approvals/ApprovalBook.js";
import type { RunRecord } from "./RunRecord.js";

/** One run's durable state: its record, events, call journal, machine snapshot and evidence. */
export interface RunHandle {
  readonly runId: string;
  /** Where the run's files live (for messages), e.g. `.flow/runs/<runId>`. */
  readonly location: string;
  /** The file story evidence lands in (named in the PRD's notes). */
  readonly evidenceFile: string;
  record(): RunRecord;
  /** Merges into the run record and persists it. */
  updateRecord(patch: Partial<RunRecord>): void;
  /**
   * Appends an event; events of one run keep their order. Implementations may buffer, but must write
   * pending events before a snapshot (a resume relies on the events of every state it restores) and
   * soon after they were appended (whoever watches the run sees it as it goes).
   */
  appendEvent(event: RunEvent): void;
  /** Every event recorded so far, in order. */
  events(): Promise<RunEvent[]>;
  /**
   * Persists the machine's snapshot (replacing the previous one), after writing what is buffered
   * ({@link flush}): no persisted state relies on a journal line, evidence or event not written.
   */
  saveSnapshot(snapshot: unknown): void;
  /** Writes what is buffered: journal lines held back, evidence and events (in that order). */
  flush(): void;
  /** The last persisted snapshot, if any. */
  loadSnapshot(): unknown;
  /**
   * Records a story's evidence (the last record of a story wins; it may be buffered like events);
   * returns the file it lands in.
   */
  writeEvidence(storyId: string, evidence: Record<string, unknown>): string;
  /** Appends a log line (specialist notes, warnings). */
  log(entry: Record<string, unknown>): void;
  readonly journal: CallJournal;
  /**
   * The run's approval requests and decisions, beside its journal; absent where the store keeps none
   * (then a call that needs approval is refused, `approval_required`).
   */
  readonly approvals?: ApprovalBook;
  /** Flushes and releases the run (its lock, open files). */
  close(): Promise<void>;
}

/** Where runs are kept. The file store is the default; a Redis store plugs in behind the same interface. */
export interface RunStore {
  /** Creates a new run folder; fails with `usage` when the id is taken. */
  create(record: RunRecord): Promise<RunHandle>;
  /** Opens an existing run for resuming (takes its lock); `run_not_found` with suggestions otherwise. */
  open(runId: string): Promise<RunHandle>;
  /** Reads a run without taking its lock. */
  read(runId: string): Promise<{ record: RunRecord; events: RunEvent[] }>;
  /** Every run, newest first. */
  list(): Promise<RunRecord[]>;
}
