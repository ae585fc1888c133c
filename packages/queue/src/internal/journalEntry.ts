import type { ToolResult } from "@meshflow/core";
import type { JournalEntry } from "@meshflow/mcp";

/** A journal entry as stored in Redis: the public entry plus who claimed the call. */
export interface StoredEntry extends JournalEntry {
  /** The BullMQ token of the attempt that claimed the call (its fencing token). */
  token?: string;
  /** The BullMQ lock key of the call's job: while it holds `token`, that attempt is alive. */
  lock?: string;
  /** Name of the worker that claimed the call. */
  worker?: string;
  /** The job attempt (BullMQ `attemptsStarted`) that claimed the call. */
  attempt?: number;
}

/** Parses a stored entry; undefined for anything that is not one. */
export function parseEntry(text: string | null | undefined): StoredEntry | undefined {
  if (!text) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (!value || typeof value !== "object") return undefined;
    const entry = value as Partial<StoredEntry>;
    if (typeof entry.key !== "string" || (entry.state !== "started" && entry.state !== "finished")) return undefined;
    return entry as StoredEntry;
  } catch {
    return undefined;
  }
}

/** The public view of a stored entry (without the claim's token and lock). */
export function publicEntry(entry: StoredEntry): JournalEntry {
  const { token: _t, lock: _l, worker: _w, attempt: _a, ...rest } = entry;
  return rest;
}

/** True when `value` looks like a `ToolResult` (a content array). */
export function isToolResult(value: unknown): value is ToolResult {
  return typeof value === "object" && value !== null && Array.isArray((value as { content?: unknown }).content);
}
