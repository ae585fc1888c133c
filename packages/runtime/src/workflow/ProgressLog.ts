import { closeSync, constants, existsSync, openSync, readFileSync, renameSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { appendOwnFile, ensureOwnDir, MeshflowError } from "@meshflow/core";
import { oneLine } from "./oneLine.js";
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
      `## ${MARK[entry.status] ?? "?"} ${oneLine(entry.storyId)} ${oneLine(entry.title)} (${entry.status})`,
      "",
      `- time: ${entry.time}`,
      `- run: ${entry.runId}`,
      `- summary: ${oneLine(entry.summary)}`,
      `- files changed: ${entry.files.length ? entry.files.map((f) => `\`${oneLine(f)}\``).join(", ") : "none recorded"}`,
    );
    if (entry.commit) lines.push(`- commit: ${entry.commit.slice(0, 12)}`);
    if (entry.learnings.length) lines.push("- learnings:", ...entry.learnings.map((l) => `  - ${oneLine(l)}`));
    lines.push("", "");
    this.#pending += lines.join("\n");
  }

  /**
   * Appends the queued sections to the file: owner-only, and never through a link or into a file with
   * other hard links (a log planted as a link to `~/.bashrc` is refused with `unsafe_path`).
   */
  flush(): void {
    const text = this.#pending;
    if (!text) return;
    // Taken first: a section that cannot be written is reported once, not retried at every flush.
    this.#pending = "";
    appendOwnFile(this.file, text);
    this.#started = true;
  }

  /** The last `n` entries, newest last. */
  last(n: number): ProgressEntry[] {
    this.flush();
    const text = readNoFollow(this.file);
    if (text === undefined) return [];
    const entries: ProgressEntry[] = [];
    let current: ProgressEntry | undefined;
    for (const line of text.split("\n")) {
      if (line.startsWith("## ")) {
        current = { heading: line.slice(3), time: "" };
        entries.push(current);
      } else if (current && line.startsWith("- time: ")) current.time = line.slice(8);
    }
    return entries.slice(-n);
  }

  /**
   * The `archive/` folder beside the PRD, made owner-only when absent. One that is a link (to a folder
   * outside the project) is refused with `unsafe_path`: `flow reset --archive` checks it before it
   * changes anything.
   */
  archiveFolder(): string {
    const folder = join(dirname(this.file), "archive");
    ensureOwnDir(folder);
    return folder;
  }

  /**
   * Moves the log into `archive/<time>-<name>` beside the PRD (`flow reset --archive`); returns the
   * new path, or undefined when there was no log. The log stays where it is when the folder is refused
   * (see {@link archiveFolder}).
   */
  archive(now = new Date()): string | undefined {
    if (!existsSync(this.file)) return undefined;
    const folder = this.archiveFolder();
    const target = join(folder, `${now.toISOString().replace(/[:.]/g, "-")}-${basename(this.file)}`);
    renameSync(this.file, target);
    this.#started = false;
    return target;
  }
}

/** The log's text, undefined when there is none; a link in its place is refused, not read through. */
function readNoFollow(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP")
      throw new MeshflowError(
        "unsafe_path",
        `${file} is a symbolic link; a progress log is read only as a plain file`,
        {
          details: { path: file },
        },
      );
    throw error;
  }
  try {
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}
