import type { ToolResult } from "@meshflow/core";
import type { CallJournal, JournalEntry, JournalStart } from "@meshflow/mcp";
import { parseEntry, publicEntry, type StoredEntry } from "./internal/journalEntry.js";
import { RedisAdapter } from "./internal/RedisAdapter.js";
import { RedisKeys } from "./internal/RedisKeys.js";
import { type QueueSettings, queueSettings } from "./QueueSettings.js";
import type { RedisClient } from "./RedisClient.js";

/**
 * The call journal of one queued run, in Redis (hash `<prefix>journal:<runId>`), shared by the run
 * (on whichever worker runs it) and the workers that execute its calls. Workers write it: a call is
 * claimed as `started` atomically with a check of its job lock, and `finished` with its result when
 * the job completes. So the semantics of the file journal hold across workers: a finished key returns
 * its recorded result and is not executed again; a started key whose attempt died has an unknown
 * outcome. A started key whose worker still holds the job is in flight, not unknown: `get` reports it
 * as not started, and submitting it again joins the running job.
 *
 * @example
 * const journal = new RedisCallJournal(redis, runId);
 * const entry = await journal.get(`${runId}/US-001/step1/1`);
 */
export class RedisCallJournal implements CallJournal {
  readonly id: string;
  readonly #adapter: RedisAdapter;
  readonly #ttlSeconds: number;
  readonly #begun = new Map<string, JournalStart>();

  constructor(redis: RedisClient, id: string, settings: Partial<QueueSettings> = {}) {
    const resolved = queueSettings(settings, redis.isCluster);
    this.id = id;
    this.#adapter = new RedisAdapter(redis, new RedisKeys(resolved.prefix));
    this.#ttlSeconds = resolved.journalTtlSeconds;
  }

  async #inFlight(entry: StoredEntry): Promise<boolean> {
    if (entry.state !== "started" || !entry.lock || !entry.token) return false;
    return (await this.#adapter.lockHolder(entry.lock)) === entry.token;
  }

  async get(key: string): Promise<JournalEntry | undefined> {
    const entry = parseEntry(await this.#adapter.journalEntry(this.id, key));
    if (!entry || (await this.#inFlight(entry))) return undefined;
    return publicEntry(entry);
  }

  /**
   * Nothing is written: the call's job is the durable record of its submission, and the worker claims
   * it. The tool and arguments digest are kept for `finish` of a call no worker took.
   */
  async begin(start: JournalStart): Promise<void> {
    this.#begun.set(start.key, start);
  }

  async finish(key: string, result: ToolResult, durationMs: number): Promise<void> {
    // An `aborted` call was never handed to a worker: nothing happened that a later attempt must not
    // repeat, so it is not recorded (the worker's own record, when there is one, always wins anyway).
    const begun = this.#begun.get(key);
    this.#begun.delete(key);
    if (result.code === "aborted") return;
    const existing = parseEntry(await this.#adapter.journalEntry(this.id, key));
    if (existing?.state === "finished") return;
    const time = new Date().toISOString();
    const entry: JournalEntry = {
      key,
      tool: existing?.tool ?? begun?.tool ?? "",
      argsDigest: existing?.argsDigest ?? begun?.argsDigest ?? "",
      state: "finished",
      startedAt: existing?.startedAt ?? time,
      finishedAt: time,
      durationMs,
      result,
    };
    await this.#adapter.finishCall(this.id, key, JSON.stringify(entry), this.#ttlSeconds);
  }

  async unfinished(): Promise<JournalEntry[]> {
    const entries = (await this.#adapter.journalEntries(this.id))
      .map((text) => parseEntry(text))
      .filter((e): e is StoredEntry => e?.state === "started");
    const settled = await Promise.all(entries.map(async (e) => ((await this.#inFlight(e)) ? undefined : e)));
    return settled.filter((e): e is StoredEntry => e !== undefined).map(publicEntry);
  }

  /** The client belongs to the caller: nothing to release. */
  async close(): Promise<void> {}
}
