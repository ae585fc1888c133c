import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { StoryRecall } from "./RunMemory.js";

/** The progress log beside a PRD: `prd-auth.json` → `prd-auth.progress.md`. */
export function progressFileOf(prdFile: string): string {
  return join(dirname(prdFile), `${basename(prdFile).replace(/(\.prd)?\.json$/, "")}.progress.md`);
}

const MARK: Record<string, string> = { passed: "✓", failed: "✗", blocked: "⊘" };

/** One entry of a progress log, as `flow status <folder>` shows it. */
export interface ProgressEntry {
  /** The entry's heading, e.g. `✓ US-001 Add status field (passed)`. */
  heading: string;
  time: string;
}

/**
 * The human-readable progress log of a PRD (`<prd-name>.progress.md` beside it): one Markdown section
 * appended per concluded story with its outcome, summary, files changed and learnings. A person or an
 * agent reads it between runs; it is only ever appended to (or moved away by `flow reset --archive`).
 * Sections wait in memory until {@link flush} (a run flushes before it saves its state).
 */
export class ProgressLog {
  readonly file: string;
  /** This log appended to the file already (it has its title and folder). */
  #started = false;
  /** Sections not written yet. */
  #pending = "";

  constructor(prdFile: string) {
    this.file = progressFileOf(prdFile);
  }

  /** Queues one story's section for the next {@link flush} (the file starts with a title when new). */
  append(entry: StoryRecall): void {
    const lines: string[] = [];
    const fresh = !this.#started && !this.#pending && !existsSync(this.file);
    if (fresh) lines.push(`# Progress of ${basename(entry.prd)}`, "");
    lines.push(
      `## ${MARK[entry.status] ?? "?"} ${entry.storyId} ${entry.title} (${entry.status})`,
      "",
      `- time: ${entry.time}`,
      `- run: ${entry.runId}`,
      `- summary: ${oneLine(entry.summary)}`,
      `- files changed: ${entry.files.length ? entry.files.map((f) => `\`${f}\``).join(", ") : "none recorded"}`,
    );
    if (entry.commit) lines.push(`- commit: ${entry.commit.slice(0, 12)}`);
    if (entry.learnings.length) lines.push("- learnings:", ...entry.learnings.map((l) => `  - ${oneLine(l)}`));
    lines.push("", "");
    this.#pending += lines.join("\n");
  }

  /** Appends the queued sections to the file. */
  flush(): void {
    const text = this.#pending;
    if (!text) return;
    // Taken first: a section that cannot be written is reported once, not retried at every flush.
    this.#pending = "";
    if (!this.#started) mkdirSync(dirname(this.file), { recursive: true });
    appendFileSync(this.file, text);
    this.#started = true;
  }

  /** The last `n` entries, newest last. */
  last(n: number): ProgressEntry[] {
    this.flush();
    if (!existsSync(this.file)) return [];
    const entries: ProgressEntry[] = [];
    let current: ProgressEntry | undefined;
    for (const line of readFileSync(this.file, "utf8").split("\n")) {
      if (line.startsWith("## ")) {
        current = { heading: line.slice(3), time: "" };
        entries.push(current);
      } else if (current && line.startsWith("- time: ")) current.time = line.slice(8);
    }
    return entries.slice(-n);
  }

  /**
   * Moves the log into `archive/<time>-<name>` beside the PRD (`flow reset --archive`); returns the
   * new path, or undefined when there was no log.
   */
  archive(now = new Date()): string | undefined {
    if (!existsSync(this.file)) return undefined;
    const folder = join(dirname(this.file), "archive");
    mkdirSync(folder, { recursive: true });
    const target = join(folder, `${now.toISOString().replace(/[:.]/g, "-")}-${basename(this.file)}`);
    renameSync(this.file, target);
    this.#started = false;
    return target;
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
