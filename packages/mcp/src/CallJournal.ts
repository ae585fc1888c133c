import type { ToolResult } from "@meshflow/core";

/** What is known about one idempotency key. */
export interface JournalEntry {
  /** `<runId>/<storyId>/step<N>/<seq>`. */
  key: string;
  /** Qualified tool name. */
  tool: string;
  /** sha256 of the canonical JSON of the arguments. */
  argsDigest: string;
  /** `started`: submitted, outcome unknown until `finished` is recorded. */
  state: "started" | "finished";
  startedAt: string;
  finishedAt?: string;
  durationMs?: number;
  /** The recorded result, once finished. */
  result?: ToolResult;
}

/** What a caller records before it submits a call. */
export interface JournalStart {
  key: string;
  tool: string;
  argsDigest: string;
}

/**
 * The journal of tool calls by idempotency key: a call is recorded as started before it is submitted
 * and as finished with its result after. A finished key is never executed again (its recorded result
 * is returned); a started-but-unfinished key has an unknown outcome. Implementations: a file per run
 * (`@meshflow/runtime`'s run store), Redis for queued runs.
 */
export interface CallJournal {
  /** The entry of `key`, or undefined when the call never started. */
  get(key: string): Promise<JournalEntry | undefined>;
  /** Records that a call is about to be submitted. Durable when it resolves. */
  begin(start: JournalStart): Promise<void>;
  /** Records a call's result. Durable when it resolves. */
  finish(key: string, result: ToolResult, durationMs: number): Promise<void>;
  /**
   * Records, with its result, a call that was submitted without {@link begin}: a read-only or
   * idempotent one, which a crash before this may run again. One entry instead of two; a journal
   * without it gets `begin` and `finish`. A journal may hold the entry back (a crash then loses it,
   * and the call runs again, as it may): it is durable once the next `begin` or `finish` resolves, or
   * {@link flush} returns; `get` sees it at once.
   */
  record?(start: JournalStart, result: ToolResult, durationMs: number): Promise<void>;
  /** Makes every entry held back by {@link record} durable (nothing to do for a journal that holds none back). */
  flush?(): void;
  /** Every entry still `started` (outcome unknown). */
  unfinished(): Promise<JournalEntry[]>;
  /**
   * The run will not ask for these keys again (their story concluded): a journal may drop what it holds
   * of them in memory. What it keeps durably is unchanged (a later resume still finds them).
   */
  release?(keys: readonly string[]): void;
  close(): Promise<void>;
}
