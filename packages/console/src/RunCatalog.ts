import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { MeshflowError, processAlive, type RunEvent, stripAnsiDeep, sumTokens, type TokenCount } from "@meshflow/core";
import { FileRunStore, type RunRecord } from "@meshflow/runtime/host";
import type { LaunchState } from "./RunLauncher.js";
import { addJournalCalls, buildRunTree, type JournalStarted, type RunTree } from "./runTree.js";

/** A run's status as the console shows it: `interrupted` is a `running` record whose process is gone. */
export type ConsoleRunStatus = RunRecord["status"] | "interrupted";

/** One row of the runs list (`GET /api/runs`). */
export interface RunRow {
  runId: string;
  prd: string;
  status: ConsoleRunStatus;
  stories: number;
  counts: RunRecord["counts"];
  /** Tool calls recorded (called or refused). */
  calls: number;
  /** Refused tool calls. */
  refused: number;
  tokens?: TokenCount;
  createdAt: string;
  updatedAt: string;
  /** From the first to the last recorded event (or the record's times). */
  durationMs: number;
}

/** A run with its tree and the recorded result of each finished call (`GET /api/runs/:id`). */
export interface RunDetail {
  run: RunRow;
  record: RunRecord;
  tree: RunTree;
  /** Recorded results by idempotency key, each cut to {@link RESULT_CHARS} characters of JSON. */
  results: Record<string, { isError: boolean; text: string; truncated: boolean }>;
  /**
   * Recorded model turns by journal key (`<runId>/<storyId>/step<N>/turn<k>`): what the model said
   * and the tool calls it asked for, with their arguments (cut like results).
   */
  turns: Record<string, TurnRecord>;
  /**
   * Set by `GET /api/runs/:runId` when this console started a command for the run (`flow run` from the
   * Runs page, `flow resume` from its Resume button): the newest one, still running or ended with its
   * exit code and the end of its stderr, as `UnstartedRun` has it.
   */
  launch?: LaunchState;
}

/** A model turn as the call journal recorded it. */
export interface TurnRecord {
  text: string;
  toolCalls: Array<{ name: string; input: string }>;
}

/** Characters of one recorded result the run detail carries. */
const RESULT_CHARS = 8_000;
/** Finished runs whose detail is kept (the newest asked for): a big run's page opens again at once. */
const KEPT_DETAILS = 8;

interface Cached {
  stamp: string;
  row: RunRow;
}

function fileStamp(file: string): string {
  try {
    const s = statSync(file);
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return "-";
  }
}

const cut = (text: string): string => (text.length > RESULT_CHARS ? `${text.slice(0, RESULT_CHARS)}…` : text);

/** A journaled model response as the run view shows it, or undefined when it is not one. */
function asTurn(response: unknown): TurnRecord | undefined {
  if (!response || typeof response !== "object") return undefined;
  const r = response as { text?: unknown; toolCalls?: unknown };
  const calls = Array.isArray(r.toolCalls) ? (r.toolCalls as Array<{ name?: unknown; input?: unknown }>) : [];
  return {
    text: cut(typeof r.text === "string" ? r.text : ""),
    toolCalls: calls.map((c) => ({ name: String(c.name ?? "?"), input: cut(JSON.stringify(c.input ?? {}, null, 2)) })),
  };
}

function summarise(record: RunRecord, events: readonly RunEvent[], alive: (pid: number) => boolean): RunRow {
  let calls = 0;
  let refused = 0;
  const storyTokens = new Map<string, TokenCount | undefined>();
  let runTokens: TokenCount | undefined;
  for (const e of events) {
    if (e.type === "tool.called") calls++;
    else if (e.type === "tool.refused") {
      refused++;
      if (!e.key) calls++;
    } else if (e.type === "story.finished") storyTokens.set(e.storyId, e.tokens);
    else if (e.type === "run.finished") runTokens = e.tokens;
  }
  const tokens = runTokens ?? sumTokens([...storyTokens.values()]);
  const first = events[0]?.time ?? record.createdAt;
  const last = events.at(-1)?.time ?? record.updatedAt;
  const status: ConsoleRunStatus = record.status === "running" && !alive(record.pid) ? "interrupted" : record.status;
  const row: RunRow = {
    runId: record.runId,
    prd: record.prd,
    status,
    stories: record.stories.length,
    counts: record.counts,
    calls,
    refused,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    durationMs: Math.max(0, Date.parse(last) - Date.parse(first)) || 0,
  };
  if (tokens) row.tokens = tokens;
  return row;
}

/**
 * The run store as the console reads it: rows of the runs list (cached per run until its files
 * change), a run's tree with its recorded results, and a cheap signature of every run's files so a
 * watcher can tell what changed. Never takes a run's lock: a run in progress keeps writing.
 */
export class RunCatalog {
  readonly store: FileRunStore;
  readonly #cache = new Map<string, Cached>();
  readonly #details = new Map<string, { stamp: string; detail: RunDetail }>();
  readonly #alive: (pid: number) => boolean;

  /** `alive` decides whether a `running` record's process still runs (default: a signal-0 probe). */
  constructor(storeRoot: string, alive: (pid: number) => boolean = processAlive) {
    this.store = new FileRunStore(storeRoot);
    this.#alive = alive;
  }

  #dir(runId: string): string {
    return join(this.store.root, "runs", runId);
  }

  /** The run ids in the store and a stamp of each one's record, events and call journal (size and mtime). */
  stamps(): Map<string, string> {
    const runs = join(this.store.root, "runs");
    const stamps = new Map<string, string>();
    if (!existsSync(runs)) return stamps;
    for (const entry of readdirSync(runs, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const dir = join(runs, entry.name);
      const record = fileStamp(join(dir, "run.json"));
      if (record === "-") continue;
      // A finished run's events and journal change only after its record does (a resume rewrites
      // run.json first): one stat per finished run keeps polling a large store cheap.
      const cached = this.#cache.get(entry.name);
      if (cached && cached.row.status !== "running" && cached.stamp.startsWith(`${record}|`)) {
        stamps.set(entry.name, cached.stamp);
        continue;
      }
      stamps.set(
        entry.name,
        `${record}|${fileStamp(join(dir, "events.ndjson"))}|${fileStamp(join(dir, "journal.ndjson"))}`,
      );
    }
    return stamps;
  }

  /** Every run, newest first. */
  async list(): Promise<RunRow[]> {
    const stamps = this.stamps();
    const rows: RunRow[] = [];
    for (const [runId, stamp] of stamps) {
      const cached = this.#cache.get(runId);
      // A running record is re-checked every time: its process may have died without a write.
      if (cached && cached.stamp === stamp && cached.row.status !== "running") {
        rows.push(cached.row);
        continue;
      }
      try {
        const { record, events } = await this.store.read(runId);
        const row = summarise(record, events, this.#alive);
        this.#cache.set(runId, { stamp, row });
        rows.push(row);
      } catch {
        // A run folder being created (run.json written, events not yet) or removed: next time.
      }
    }
    for (const runId of this.#cache.keys()) if (!stamps.has(runId)) this.#cache.delete(runId);
    return rows.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
  }

  /**
   * A run's row, tree and recorded results; `run_not_found` (with suggestions) for an unknown id. A
   * finished run's detail is kept until its files change (a resume), so opening it again costs no read.
   */
  async get(runId: string): Promise<RunDetail> {
    const dir = this.#dir(runId);
    const stamp = ["run.json", "events.ndjson", "journal.ndjson"].map((f) => fileStamp(join(dir, f))).join("|");
    const kept = this.#details.get(runId);
    if (kept && kept.stamp === stamp) {
      this.#details.delete(runId);
      this.#details.set(runId, kept);
      return kept.detail;
    }
    const { record, events } = await this.store.read(runId);
    const { results, started, turns } = this.#journal(runId);
    const detail: RunDetail = {
      run: summarise(record, events, this.#alive),
      record,
      tree: addJournalCalls(buildRunTree(runId, events, record.stories), started),
      results,
      turns,
    };
    this.#details.delete(runId);
    if (record.status !== "running") {
      this.#details.set(runId, { stamp, detail });
      for (const old of this.#details.keys()) {
        if (this.#details.size <= KEPT_DETAILS) break;
        this.#details.delete(old);
      }
    }
    return detail;
  }

  /** The run's call journal: recorded results by key, and every started call (a torn last line is skipped). */
  #journal(runId: string): { results: RunDetail["results"]; started: JournalStarted[]; turns: RunDetail["turns"] } {
    const file = join(this.#dir(runId), "journal.ndjson");
    const results: RunDetail["results"] = {};
    const started: JournalStarted[] = [];
    const turns: RunDetail["turns"] = {};
    if (!existsSync(file)) return { results, started, turns };
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (!line.startsWith("{")) continue;
      let entry: {
        state?: string;
        key?: string;
        tool?: string;
        argsDigest?: string;
        at?: string;
        result?: { isError?: boolean; structuredContent?: { turn?: { response?: unknown } } };
      };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        continue;
      }
      if (entry.state === "started" && typeof entry.key === "string")
        started.push({
          key: entry.key,
          tool: entry.tool ?? "?",
          argsDigest: entry.argsDigest ?? "",
          at: entry.at ?? "",
        });
      if (entry.state !== "finished" || typeof entry.key !== "string" || !entry.result) continue;
      const turn = /\/turn\d+$/.test(entry.key) ? asTurn(entry.result.structuredContent?.turn?.response) : undefined;
      if (turn) {
        turns[entry.key] = turn;
        continue;
      }
      // A command's coloured output (run_command of a test runner) would show its escape codes raw.
      const text = JSON.stringify(stripAnsiDeep(entry.result), null, 2);
      results[entry.key] = {
        isError: entry.result.isError === true,
        text: text.length > RESULT_CHARS ? text.slice(0, RESULT_CHARS) : text,
        truncated: text.length > RESULT_CHARS,
      };
    }
    return { results, started, turns };
  }

  /** Throws `run_not_found` unless the run exists. */
  async assertExists(runId: string): Promise<RunRecord> {
    const { record } = await this.store.read(runId).catch((error: unknown) => {
      throw error instanceof MeshflowError ? error : new MeshflowError("run_not_found", String(error));
    });
    return record;
  }
}
