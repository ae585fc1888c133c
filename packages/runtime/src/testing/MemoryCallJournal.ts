import type { ToolResult } from "@meshflow/core";
import type { CallJournal, JournalEntry, JournalStart } from "@meshflow/mcp";

/** A call journal held in memory: for tests of one step, where nothing has to survive the process. */
export class MemoryCallJournal implements CallJournal {
  readonly #entries = new Map<string, JournalEntry>();

  async get(key: string): Promise<JournalEntry | undefined> {
    return this.#entries.get(key);
  }

  async begin(start: JournalStart): Promise<void> {
    this.#entries.set(start.key, { ...start, state: "started", startedAt: new Date().toISOString() });
  }

  async finish(key: string, result: ToolResult, durationMs: number): Promise<void> {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.set(key, { ...entry, state: "finished", finishedAt: new Date().toISOString(), durationMs, result });
  }

  async unfinished(): Promise<JournalEntry[]> {
    return [...this.#entries.values()].filter((e) => e.state === "started");
  }

  async close(): Promise<void> {}
}
