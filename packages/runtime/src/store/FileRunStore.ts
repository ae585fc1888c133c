import { closeSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import {
  acquireFileLock,
  didYouMean,
  eventLine,
  isRunId,
  MeshflowError,
  openOwnFileForAppend,
  type RunEvent,
  writeFileAtomic,
} from "@meshflow/core";
import { FileApprovalBook } from "../approvals/FileApprovalBook.js";
import { readNdjson } from "../internal/ndjson.js";
import { ensureStoreDir } from "./ensureStoreDir.js";
import { FileCallJournal } from "./FileCallJournal.js";
import { lockPrd } from "./lockPrd.js";
import { type RunRecord, RunRecordSchema } from "./RunRecord.js";
import type { RunHandle, RunStore } from "./RunStore.js";

/** Folder of the run store, relative to the working directory, unless `FLOW_HOME` says otherwise. */
const DEFAULT_STORE_DIR = ".flow";

/** Checks a run id given by a user (`--run-id`): letters, digits, `.`, `_`, `-`. */
export function assertRunId(runId: string): void {
  if (!isRunId(runId))
    throw new MeshflowError(
      "usage",
      `invalid run id "${runId}": use letters, digits, ".", "_" and "-" (at most 80, not starting with a symbol)`,
    );
}

/** A new, sortable run id: `20250111-142233-3f9a`. */
export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${Math.random().toString(16).slice(2, 6)}`;
}

/** Mode of every file of a run: tool results are kept verbatim and may contain secrets. */
const OWNER_ONLY = 0o600;

/** Longest an appended event waits before it is written (a snapshot writes it sooner). */
const EVENT_FLUSH_MS = 100;

/** Snapshot log size past which it is compacted to its last line. */
const SNAPSHOT_COMPACT_BYTES = 4 * 1024 * 1024;

/**
 * Runs under `<root>/runs/<runId>/`: `run.json` (the record), `events.ndjson` (append-only),
 * `journal.ndjson` (tool calls by idempotency key), `approvals.ndjson` (calls that waited for a
 * person's approval, and the decisions), `snapshot.ndjson` (the machine's persisted
 * snapshots, the last line wins, compacted now and then), `evidence.ndjson` (one record per concluded
 * story), `log.ndjson`, and a `lock` held by the process running it. Everything that changes during
 * a run is appended, never rewritten: a killed process leaves at most a torn last line, which
 * reading ignores, and appends stay cheap where replacing a file is not. The run folder is created
 * readable by its owner only (0700): tool results are kept verbatim and may contain secrets.
 */
export class FileRunStore implements RunStore {
  readonly root: string;

  constructor(root: string = process.env.FLOW_HOME ?? DEFAULT_STORE_DIR) {
    this.root = resolve(root);
  }

  #dir(runId: string): string {
    return join(this.root, "runs", runId);
  }

  /**
   * A run's approvals book (`approvals.ndjson` in its folder), read and appended without the run's
   * lock: `flow approve` decides while the run waits in another process, or while nobody runs it.
   */
  approvals(runId: string): FileApprovalBook {
    assertRunId(runId);
    return new FileApprovalBook(join(this.#dir(runId), "approvals.ndjson"));
  }

  /**
   * The file that asks a run's process to stop (`flow console`'s "Stop this run"): the process of
   * `flow run` or `flow resume` watches for it and stops as Ctrl-C does, leaving the run resumable.
   */
  stopRequestFile(runId: string): string {
    assertRunId(runId);
    return join(this.#dir(runId), "stop-requested");
  }

  async create(record: RunRecord): Promise<RunHandle> {
    assertRunId(record.runId);
    const dir = this.#dir(record.runId);
    const release = lockPrd(record.prd, record.runId, this.root);
    try {
      ensureStoreDir(this.root, "runs");
      try {
        // Owner only: the journal and events hold tool results verbatim, which may include secrets.
        mkdirSync(dir, { mode: 0o700 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST")
          throw new MeshflowError("usage", `run "${record.runId}" already exists in ${this.#display(dir)}`);
        throw error;
      }
      return FileRunHandle.open(dir, this.#display(dir), release, record);
    } catch (error) {
      release();
      throw error;
    }
  }

  async open(runId: string): Promise<RunHandle> {
    const dir = this.#existing(runId);
    const release = lockPrd(readRecord(dir).prd, runId, this.root);
    try {
      return FileRunHandle.open(dir, this.#display(dir), release);
    } catch (error) {
      release();
      throw error;
    }
  }

  async read(runId: string): Promise<{ record: RunRecord; events: RunEvent[] }> {
    const dir = this.#existing(runId);
    return { record: readRecord(dir), events: readNdjson(join(dir, "events.ndjson")) as RunEvent[] };
  }

  async list(): Promise<RunRecord[]> {
    const runs = join(this.root, "runs");
    if (!existsSync(runs)) return [];
    const records: RunRecord[] = [];
    for (const entry of readdirSync(runs, { withFileTypes: true })) {
      if (!entry.isDirectory() || !existsSync(join(runs, entry.name, "run.json"))) continue;
      records.push(readRecord(join(runs, entry.name)));
    }
    return records.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
  }

  #existing(runId: string): string {
    assertRunId(runId);
    const dir = this.#dir(runId);
    if (existsSync(join(dir, "run.json"))) return dir;
    const runs = join(this.root, "runs");
    const known = existsSync(runs) ? readdirSync(runs) : [];
    throw new MeshflowError("run_not_found", `no run "${runId}" in ${this.#display(runs)}${didYouMean(runId, known)}`, {
      details: { runId },
    });
  }

  #display(path: string): string {
    const rel = relative(process.cwd(), path);
    return rel && !rel.startsWith("..") ? rel : path;
  }
}

function readRecord(dir: string): RunRecord {
  const file = join(dir, "run.json");
  const parsed = RunRecordSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success)
    throw new MeshflowError("internal", `${file}: not a run record: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  return parsed.data;
}

class FileRunHandle implements RunHandle {
  readonly runId: string;
  readonly location: string;
  readonly evidenceFile: string;
  readonly journal: FileCallJournal;
  readonly approvals: FileApprovalBook;
  readonly #dir: string;
  #record: RunRecord;
  #events: number;
  #log: number | undefined;
  #evidence: number | undefined;
  #snapshots: number | undefined;
  #snapshotBytes = 0;
  /** Events appended and not written yet (made lines when written). */
  #pendingEvents: RunEvent[] = [];
  /** Evidence records not written yet (made lines when written). */
  #pendingEvidence: Record<string, unknown>[] = [];
  #flushTimer: NodeJS.Timeout | undefined;
  readonly #snapshotFile: string;
  readonly #releaseLocks: () => void;

  private constructor(dir: string, location: string, record: RunRecord, releaseLocks: () => void) {
    this.#dir = dir;
    this.#releaseLocks = releaseLocks;
    this.location = location;
    this.#record = record;
    this.runId = record.runId;
    this.evidenceFile = join(dir, "evidence.ndjson");
    this.journal = new FileCallJournal(join(dir, "journal.ndjson"));
    this.approvals = new FileApprovalBook(join(dir, "approvals.ndjson"));
    this.#events = openOwnFileForAppend(join(dir, "events.ndjson"));
    const snapshots = join(dir, "snapshot.ndjson");
    this.#snapshotFile = snapshots;
    this.#snapshotBytes = existsSync(snapshots) ? statSync(snapshots).size : 0;
  }

  /**
   * Takes the run's lock (a live other process holding it is an error; a dead one's is taken over),
   * then opens its files. The handle releases `releasePrd` with its own lock when it closes.
   */
  static open(dir: string, location: string, releasePrd: () => void, fresh?: RunRecord): FileRunHandle {
    const lock = acquireFileLock(join(dir, "lock"), {}, { reclaimOwnPid: true });
    if (!lock.acquired)
      throw new MeshflowError("run_locked", `run in ${location} is being run by process ${lock.holder.pid}`, {
        details: { pid: lock.holder.pid },
      });
    try {
      const record = fresh ?? readRecord(dir);
      const handle = new FileRunHandle(dir, location, { ...record, pid: process.pid }, () => {
        lock.release();
        releasePrd();
      });
      handle.#writeRecord();
      return handle;
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  record(): RunRecord {
    return this.#record;
  }

  updateRecord(patch: Partial<RunRecord>): void {
    this.#record = { ...this.#record, ...patch, updatedAt: new Date().toISOString() };
    this.#writeRecord();
  }

  #writeRecord(): void {
    writeFileAtomic(join(this.#dir, "run.json"), `${JSON.stringify(this.#record, null, 2)}\n`, { mode: OWNER_ONLY });
  }

  appendEvent(event: RunEvent): void {
    this.#pendingEvents.push(event);
    this.#later();
  }

  #later(): void {
    this.#flushTimer ??= setTimeout(() => this.flush(), EVENT_FLUSH_MS).unref();
  }

  /**
   * Journal lines held back, evidence and events are written in batches, in that order: before a
   * snapshot (a resume relies on the events of every state it restores: a story's `story.finished` is
   * how its pass mark is written again), at most {@link EVENT_FLUSH_MS} after they were added (a step
   * with a slow tool is seen calling it), and when the run closes.
   */
  flush(): void {
    if (this.#flushTimer) clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    this.journal.flush();
    if (this.#pendingEvidence.length) {
      let text = "";
      for (const record of this.#pendingEvidence) text += `${JSON.stringify(record)}\n`;
      this.#pendingEvidence = [];
      this.#evidence ??= openOwnFileForAppend(this.evidenceFile);
      writeSync(this.#evidence, text);
    }
    const events = this.#pendingEvents;
    if (!events.length) return;
    this.#pendingEvents = [];
    let text = "";
    for (const event of events) text += `${eventLine(event)}\n`;
    writeSync(this.#events, text);
  }

  async events(): Promise<RunEvent[]> {
    this.flush();
    return readNdjson(join(this.#dir, "events.ndjson")) as RunEvent[];
  }

  saveSnapshot(snapshot: unknown): void {
    this.flush();
    const file = this.#snapshotFile;
    const line = `${JSON.stringify(snapshot)}\n`;
    if (this.#snapshotBytes + line.length > SNAPSHOT_COMPACT_BYTES) {
      if (this.#snapshots !== undefined) closeSync(this.#snapshots);
      this.#snapshots = undefined;
      writeFileAtomic(file, line, { mode: OWNER_ONLY });
      this.#snapshotBytes = line.length;
      return;
    }
    this.#snapshots ??= openOwnFileForAppend(file);
    writeSync(this.#snapshots, line);
    this.#snapshotBytes += line.length;
  }

  loadSnapshot(): unknown {
    return readNdjson(this.#snapshotFile).at(-1);
  }

  writeEvidence(storyId: string, evidence: Record<string, unknown>): string {
    this.#pendingEvidence.push({ storyId, ...evidence });
    this.#later();
    return this.evidenceFile;
  }

  log(entry: Record<string, unknown>): void {
    this.#log ??= openOwnFileForAppend(join(this.#dir, "log.ndjson"));
    writeSync(this.#log, `${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`);
  }

  async close(): Promise<void> {
    this.flush();
    await this.journal.close();
    closeSync(this.#events);
    for (const fd of [this.#log, this.#evidence, this.#snapshots]) if (fd !== undefined) closeSync(fd);
    this.#log = this.#evidence = this.#snapshots = undefined;
    this.#releaseLocks();
  }
}
