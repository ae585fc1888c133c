import { createHash } from "node:crypto";
import { readFileSync, realpathSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { appendOwnFile, writeFileAtomic } from "@meshflow/core";
import { readNdjson } from "../internal/ndjson.js";
import { ensureStoreDir } from "../store/ensureStoreDir.js";
import type { Learning, Recall, StoryRecall } from "./RunMemory.js";

/** How many finished stories and learnings a step is shown at most (newest first). */
const RECALL_LIMITS = { stories: 20, learnings: 20 } as const;
/** Finished stories kept for recall: twice what is shown, so a story that fails again leaves enough behind. */
const KEPT = { stories: 2 * RECALL_LIMITS.stories } as const;

function realOrResolved(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return resolve(file);
  }
}

/**
 * The structured story memory in the run store: `<store>/memory/<prd-name>-<hash>.ndjson`, one line per
 * concluded story of that PRD (whatever run concluded it), appended, never rewritten. The hash is of the
 * PRD's real path, so two PRDs of the same name in different folders keep apart. Lines wait in memory
 * until {@link flush} (a run flushes before it saves its state); {@link recall} sees them at once.
 */
export class StoryMemory {
  readonly root: string;
  readonly #storeRoot: string;
  /**
   * What {@link recall} hands out, by PRD and related PRDs; kept up to date by {@link append}. Bounded
   * (twice the limits), so a run's memory does not grow with its stories.
   */
  readonly #views = new Map<string, { files: string[]; passed: StoryRecall[]; learnings: Learning[] }>();
  readonly #files = new Map<string, string>();
  /** Lines not written yet, by memory file. */
  readonly #pending = new Map<string, string>();
  #rootMade = false;

  /** `storeRoot`: the run store's folder (e.g. `.flow`). */
  constructor(storeRoot: string) {
    this.#storeRoot = resolve(storeRoot);
    this.root = join(this.#storeRoot, "memory");
  }

  /** The memory file of a PRD. */
  fileOf(prdFile: string): string {
    const known = this.#files.get(prdFile);
    if (known) return known;
    const file = this.#fileOf(prdFile);
    this.#files.set(prdFile, file);
    return file;
  }

  #fileOf(prdFile: string): string {
    const real = realOrResolved(prdFile);
    const hash = createHash("sha256").update(real).digest("hex").slice(0, 12);
    return join(this.root, `${basename(real).replace(/\.json$/, "")}-${hash}.ndjson`);
  }

  /** Records a concluded story of `prdFile` (written with the next {@link flush}). */
  append(prdFile: string, entry: StoryRecall): void {
    const file = this.fileOf(prdFile);
    this.#pending.set(file, `${this.#pending.get(file) ?? ""}${JSON.stringify(entry)}\n`);
    // The entry is the newest: it goes first (a story's earlier record leaves the passed list).
    for (const view of this.#views.values()) {
      if (view.files[0] === file) {
        view.passed = view.passed.filter((s) => s.storyId !== entry.storyId);
        if (entry.status === "passed") view.passed.unshift(entry);
        view.passed.length = Math.min(view.passed.length, KEPT.stories);
      }
      if (view.files.includes(file) && entry.learnings.length)
        view.learnings = [
          ...entry.learnings
            .map((text) => ({ prd: entry.prd, storyId: entry.storyId, text, time: entry.time }))
            .reverse(),
          ...view.learnings,
        ].slice(0, RECALL_LIMITS.learnings);
    }
  }

  /** Appends the queued lines to their files. */
  flush(): void {
    if (!this.#pending.size) return;
    // Taken first: lines that cannot be written are reported once, not retried at every flush.
    const pending = [...this.#pending];
    this.#pending.clear();
    if (!this.#rootMade) ensureStoreDir(this.#storeRoot, "memory");
    this.#rootMade = true;
    // Never through a link planted at a memory file's (predictable) name.
    for (const [file, lines] of pending) appendOwnFile(file, lines);
  }

  /** Every recorded story of `prdFile`, oldest first, read from its file. */
  entries(prdFile: string): StoryRecall[] {
    this.flush();
    return readNdjson(this.fileOf(prdFile)) as StoryRecall[];
  }

  /**
   * Keeps the tree a story of `prdFile` started from (`git status` with digests), so a run resumed in
   * another process still knows what the story changed. One per PRD: a PRD has one live run.
   */
  saveStart(prdFile: string, storyId: string, runId: string, state: ReadonlyMap<string, string>): void {
    ensureStoreDir(this.#storeRoot, "memory");
    const file = this.fileOf(prdFile).replace(/\.ndjson$/, ".start.json");
    writeFileAtomic(file, JSON.stringify({ storyId, runId, state: [...state] }), { mode: 0o600 });
  }

  /** The tree `storyId` of `prdFile` started from in run `runId`, if {@link saveStart} kept it. */
  loadStart(prdFile: string, storyId: string, runId: string): Map<string, string> | undefined {
    try {
      const kept = JSON.parse(readFileSync(this.fileOf(prdFile).replace(/\.ndjson$/, ".start.json"), "utf8")) as {
        storyId?: unknown;
        runId?: unknown;
        state?: unknown;
      };
      return kept.storyId === storyId && kept.runId === runId && Array.isArray(kept.state)
        ? new Map(kept.state as Array<[string, string]>)
        : undefined;
    } catch {
      return undefined;
    }
  }

  /** The latest record of each story of `prdFile`, by story id. */
  latest(prdFile: string): Map<string, StoryRecall> {
    const latest = new Map<string, StoryRecall>();
    for (const entry of this.entries(prdFile)) latest.set(entry.storyId, entry);
    return latest;
  }

  /**
   * What a step of `storyId` in `prdFile` is told: the PRD's other finished stories (their latest
   * record, passed ones only) and the learnings of this PRD and the `related` PRDs, newest first,
   * bounded by {@link RECALL_LIMITS}.
   */
  recall(prdFile: string, storyId: string, related: readonly string[] = []): Recall {
    const key = [prdFile, ...related].join("\0");
    let view = this.#views.get(key);
    if (!view) {
      // Sorted once, then kept current by append: a run asks at every step.
      const learnings: Learning[] = [];
      for (const file of [prdFile, ...related])
        for (const s of this.entries(file))
          for (const text of s.learnings) learnings.push({ prd: s.prd, storyId: s.storyId, text, time: s.time });
      view = {
        files: [prdFile, ...related].map((f) => this.fileOf(f)),
        passed: newestFirst([...this.latest(prdFile).values()])
          .filter((s) => s.status === "passed")
          .slice(0, KEPT.stories),
        learnings: newestFirst(learnings).slice(0, RECALL_LIMITS.learnings),
      };
      this.#views.set(key, view);
    }
    const stories: StoryRecall[] = [];
    for (const s of view.passed) {
      if (stories.length >= RECALL_LIMITS.stories) break;
      if (s.storyId !== storyId) stories.push(s);
    }
    return { stories, learnings: view.learnings };
  }
}

/** Newest first by time; of equal times (one millisecond), the one recorded later first. */
function newestFirst<T extends { time: string }>(items: readonly T[]): T[] {
  return items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => (a.item.time < b.item.time ? 1 : a.item.time > b.item.time ? -1 : b.index - a.index))
    .map(({ item }) => item);
}
