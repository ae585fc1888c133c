import { closeSync, openSync, writeSync } from "node:fs";
import type { ToolResult } from "@meshflow/core";
import type { CallJournal, JournalEntry, JournalStart } from "@meshflow/queue";
import { readNdjson } from "../internal/ndjson.js";

type Line =
  | { state: "started"; key: string; tool: string; argsDigest: string; at: string }
  | { state: "finished"; key: string; result: ToolResult; durationMs: number; at: string };

/** Owner only, like the run folder: results are kept verbatim and may contain secrets. */
const OWNER_ONLY = 0o600;
/**
 * The call journal of one run as an append-only file (`journal.ndjson`): a `started` line before a
 * call is submitted, a `finished` line with the result after. Lines are written with one `write(2)`
 * each, so a killed process leaves at most a torn last line, which reading ignores.
 */
export class FileCallJournal implements CallJournal {
  readonly #file: string;
  readonly #entries = new Map<string, JournalEntry>();
  #fd: number | undefined;

  readonly #beforeWrite: () => void;

  /** `beforeWrite` runs before each line is written (the run store flushes its events there). */
  constructor(file: string, beforeWrite: () => void = () => {}) {
    this.#file = file;
    this.#beforeWrite = beforeWrite;
    for (const raw of readNdjson(file)) this.#apply(raw as Line);
  }

  #apply(line: Line): void {
    if (line.state === "started") {
      this.#entries.set(line.key, {
        key: line.key,
        tool: line.tool,
        argsDigest: line.argsDigest,
        state: "started",
        startedAt: line.at,
      });
      return;
    }
    const entry = this.#entries.get(line.key);
    if (!entry) return;
    this.#entries.set(line.key, {
      ...entry,
      state: "finished",
      finishedAt: line.at,
      durationMs: line.durationMs,
      result: line.result,
    });
  }

  #append(line: Line): void {
    this.#beforeWrite();
    this.#fd ??= openSync(this.#file, "a", OWNER_ONLY);
    writeSync(this.#fd, `${JSON.stringify(line)}\n`);
    this.#apply(line);
  }

  async get(key: string): Promise<JournalEntry | undefined> {
    return this.#entries.get(key);
  }

  async begin(start: JournalStart): Promise<void> {
    this.#append({ state: "started", ...start, at: new Date().toISOString() });
  }

  async finish(key: string, result: ToolResult, durationMs: number): Promise<void> {
    this.#append({ state: "finished", key, result, durationMs, at: new Date().toISOString() });
  }

  async unfinished(): Promise<JournalEntry[]> {
    return [...this.#entries.values()].filter((e) => e.state === "started");
  }

  async close(): Promise<void> {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }
}
