// The queue package's one Redis adapter: every Redis command of meshflow's own keys is in this file,
// and every multi-key change is a Lua script in the package's lua/ folder (`<name>-<numKeys>.lua`), as bullmq does.
// BullMQ's own keys are only touched through bullmq.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { packageFile } from "@meshflow/core";
import type { RedisClient } from "../RedisClient.js";
import type { RedisKeys } from "./RedisKeys.js";

const LUA_DIR = packageFile(import.meta.url, "lua");

interface Script {
  name: string;
  numberOfKeys: number;
  lua: string;
}

/** Every script of ../../lua, its key count read from its file name as bullmq does. */
const SCRIPTS: readonly Script[] = readdirSync(LUA_DIR)
  .filter((file) => file.endsWith(".lua"))
  .map((file) => {
    const match = /^(.+)-(\d+)\.lua$/.exec(file);
    if (!match?.[1] || !match[2]) throw new Error(`${file}: Lua script names are <name>-<numKeys>.lua`);
    return { name: match[1], numberOfKeys: Number(match[2]), lua: readFileSync(join(LUA_DIR, file), "utf8") };
  });

type ScriptName = "claimCall" | "commitCall" | "finishCall" | "enqueueRun" | "finishRun";
type ScriptFunction = (...keysAndArgs: Array<string | number>) => Promise<unknown>;

const DEFINED = new WeakSet<RedisClient>();

/** A script's `{ verdict, entry }` reply. */
export interface ScriptVerdict<V extends string> {
  verdict: V;
  /** The entry JSON the script returned, or undefined. */
  entry: string | undefined;
}

function verdictOf<V extends string>(reply: unknown): ScriptVerdict<V> {
  const [verdict, entry] = Array.isArray(reply) ? reply : [];
  return { verdict: String(verdict) as V, entry: typeof entry === "string" && entry ? entry : undefined };
}

/** Flattens `{a: 1, b: "x"}` into `["a", "1", "b", "x"]` for HSET. */
function flatten(fields: Readonly<Record<string, string | number>>): string[] {
  return Object.entries(fields).flatMap(([k, v]) => [k, String(v)]);
}

/** Redis access of the queue package over one ioredis client (which the caller owns). */
export class RedisAdapter {
  readonly client: RedisClient;
  readonly keys: RedisKeys;

  constructor(client: RedisClient, keys: RedisKeys) {
    this.client = client;
    this.keys = keys;
    if (!DEFINED.has(client)) {
      // defineCommand sends EVALSHA and falls back to EVAL once per connection (a restarted Redis
      // has an empty script cache; ioredis reloads it by itself).
      for (const script of SCRIPTS)
        client.defineCommand(script.name, { numberOfKeys: script.numberOfKeys, lua: script.lua });
      DEFINED.add(client);
    }
  }

  #script(name: ScriptName): ScriptFunction {
    const fn = (this.client as unknown as Record<string, ScriptFunction>)[name];
    if (!fn) throw new Error(`Lua script ${name} is not defined`);
    return fn.bind(this.client);
  }

  // --- the call journal -------------------------------------------------------------------------

  /** claimCall-2.lua: checks the job lock and marks the call started, atomically. */
  async claimCall(input: {
    lockKey: string;
    journal: string;
    token: string;
    key: string;
    started: string;
    safe: boolean;
    tool: string;
    argsDigest: string;
    ttlSeconds: number;
  }): Promise<ScriptVerdict<"lost" | "finished" | "mismatch" | "unknown" | "run">> {
    const reply = await this.#script("claimCall")(
      input.lockKey,
      this.keys.journal(input.journal),
      input.token,
      input.key,
      input.started,
      input.safe ? "1" : "0",
      input.tool,
      input.argsDigest,
      input.ttlSeconds,
    );
    return verdictOf(reply);
  }

  /** commitCall-1.lua: records the result if this token's "started" mark is still in place. */
  async commitCall(input: {
    journal: string;
    token: string;
    key: string;
    finished: string;
    ttlSeconds: number;
  }): Promise<ScriptVerdict<"committed" | "finished" | "lost">> {
    const reply = await this.#script("commitCall")(
      this.keys.journal(input.journal),
      input.token,
      input.key,
      input.finished,
      input.ttlSeconds,
    );
    return verdictOf(reply);
  }

  /** finishCall-1.lua: records a caller-side result unless the key already has one. */
  async finishCall(journal: string, key: string, finished: string, ttlSeconds: number): Promise<boolean> {
    return (await this.#script("finishCall")(this.keys.journal(journal), key, finished, ttlSeconds)) === 1;
  }

  /** The journal entry JSON of a key. */
  journalEntry(journal: string, key: string): Promise<string | null> {
    return this.client.hget(this.keys.journal(journal), key);
  }

  /** Every journal entry JSON of a run. */
  async journalEntries(journal: string): Promise<string[]> {
    return Object.values(await this.client.hgetall(this.keys.journal(journal)));
  }

  /** The value of a BullMQ job lock (the token of the worker holding the job), or null. */
  lockHolder(lockKey: string): Promise<string | null> {
    return this.client.get(lockKey);
  }

  // --- queued runs ------------------------------------------------------------------------------

  /** enqueueRun-3.lua: registers a run unless its content is queued or running; returns the holder's id. */
  async enqueueRun(input: {
    digest: string;
    runId: string;
    now: number;
    replacing?: string;
    record: Readonly<Record<string, string | number>>;
  }): Promise<string> {
    const reply = await this.#script("enqueueRun")(
      this.keys.runDigests(),
      this.keys.run(input.runId),
      this.keys.runIndex(),
      input.digest,
      input.runId,
      input.now,
      input.replacing ?? "",
      ...flatten(input.record),
    );
    return String(reply);
  }

  /** finishRun-4.lua: final record fields, digest released, keys expire after `keepSeconds`. */
  async finishRun(input: {
    digest: string;
    runId: string;
    keepSeconds: number;
    now: number;
    record: Readonly<Record<string, string | number>>;
  }): Promise<void> {
    await this.#script("finishRun")(
      this.keys.runDigests(),
      this.keys.run(input.runId),
      this.keys.runStories(input.runId),
      this.keys.runIndex(),
      input.digest,
      input.runId,
      input.keepSeconds,
      input.now,
      ...flatten(input.record),
    );
  }

  /** Updates fields of a run's record. */
  async updateRun(runId: string, fields: Readonly<Record<string, string | number>>): Promise<void> {
    await this.client.hset(this.keys.run(runId), flatten(fields));
  }

  /** Adds to a numeric field of a run's record. */
  incrementRun(runId: string, field: string): Promise<number> {
    return this.client.hincrby(this.keys.run(runId), field, 1);
  }

  /** Appends one line to a run's approvals list. */
  async appendApproval(runId: string, line: string): Promise<void> {
    await this.client.rpush(this.keys.runApprovals(runId), line);
  }

  /** Every line of a run's approvals list, in order. */
  approvals(runId: string): Promise<string[]> {
    return this.client.lrange(this.keys.runApprovals(runId), 0, -1);
  }

  /** Stores one story's report JSON. */
  async setStory(runId: string, storyId: string, report: string): Promise<void> {
    await this.client.hset(this.keys.runStories(runId), storyId, report);
  }

  /** A run's record fields and story reports (empty record when unknown). */
  async readRun(runId: string): Promise<{ record: Record<string, string>; stories: Record<string, string> }> {
    const [record, stories] = await Promise.all([
      this.client.hgetall(this.keys.run(runId)),
      this.client.hgetall(this.keys.runStories(runId)),
    ]);
    return { record, stories };
  }

  /** The newest run ids, newest first. */
  recentRuns(limit: number): Promise<string[]> {
    return this.client.zrevrange(this.keys.runIndex(), 0, limit - 1);
  }

  /** The id of the run holding a content digest (queued or running), if any. */
  runOfDigest(digest: string): Promise<string | null> {
    return this.client.hget(this.keys.runDigests(), digest);
  }
}

/**
 * A stream id just before now on the server's clock (`<ms>-0`): a `QueueEvents` that starts reading
 * there sees every event added after this call, even before its first XREAD (which from `$` would
 * miss them). Server time, not this machine's: stream ids come from the Redis clock.
 */
export async function streamIdNow(client: RedisClient): Promise<string> {
  const [seconds, micros] = await client.time();
  return `${Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) - 1}-0`;
}

/** `INFO <section>` of a server as a map of its `key:value` lines. */
export async function serverInfo(client: RedisClient, section: string): Promise<Map<string, string>> {
  const text = await client.info(section);
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const at = line.indexOf(":");
    if (at > 0 && !line.startsWith("#")) fields.set(line.slice(0, at), line.slice(at + 1).trim());
  }
  return fields;
}
