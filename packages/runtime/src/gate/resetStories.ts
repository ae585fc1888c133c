import { closeSync, fstatSync, openSync, readFileSync, realpathSync } from "node:fs";
import { didYouMean, jsoncParser, MeshflowError, removeStaleTempFiles, writeFileAtomic } from "@meshflow/core";
import type { FormattingOptions, ParseError } from "jsonc-parser";
import { lockPrd } from "../store/FileRunStore.js";
import { WRITE_BACK_ATTEMPTS } from "./writeStoryPassed.js";

/** What {@link resetStories} did. */
export interface ResetResult {
  /** Stories set back to `passes: false` with empty `notes` (ids, file order). */
  reset: string[];
  /** Whether the file changed (a story already reset is left as it is). */
  changed: boolean;
}

function formattingOf(text: string): FormattingOptions {
  const indent = /\n([ \t]+)"/.exec(text)?.[1] ?? "  ";
  return {
    insertSpaces: !indent.startsWith("\t"),
    tabSize: indent.startsWith("\t") ? 1 : indent.length,
    eol: text.includes("\r\n") ? "\r\n" : "\n",
  };
}

/** The PRD text with the chosen stories reset; throws `usage` naming an unknown story id. */
function resetText(
  text: string,
  file: string,
  storyIds: readonly string[] | undefined,
): ResetResult & { text: string } {
  const { applyEdits, modify, parse } = jsoncParser();
  const errors: ParseError[] = [];
  const data = parse(text, errors, { allowTrailingComma: true }) as { userStories?: unknown };
  if (errors.length || !Array.isArray(data?.userStories))
    throw new MeshflowError("prd_invalid", `${file}: not a PRD with a userStories array (run flow validate)`);
  const stories = data.userStories as Array<Record<string, unknown> | null>;
  const ids = stories.map((s) => (s && typeof s.id === "string" ? s.id : ""));
  for (const id of storyIds ?? [])
    if (!ids.includes(id))
      throw new MeshflowError(
        "usage",
        `${file}: no story "${id}" in userStories${ids.length <= 10 ? ` (stories: ${ids.join(", ")})` : didYouMean(id, ids)}`,
      );
  const formattingOptions = formattingOf(text);
  let next = text;
  const reset: string[] = [];
  stories.forEach((story, index) => {
    const id = ids[index] ?? "";
    if (!story || (storyIds && !storyIds.includes(id))) return;
    reset.push(id);
    if (story.passes !== false)
      next = applyEdits(next, modify(next, ["userStories", index, "passes"], false, { formattingOptions }));
    if (story.notes !== "")
      next = applyEdits(next, modify(next, ["userStories", index, "notes"], "", { formattingOptions }));
  });
  return { text: next, reset, changed: next !== text };
}

/**
 * Sets `passes: false` and clears `notes` of the chosen stories of a PRD (all when `storyIds` is
 * undefined) — `flow reset`. Holds the PRD's lock meanwhile, so it refuses (`prd_busy`) while a run
 * of the PRD is live. As the completion gate's write-back does, it changes only those values (every
 * other byte stays), replaces the file atomically with the same mode, and only if the file is still
 * the version it read (checked right before the rename); otherwise it starts over from the new
 * content, so an edit saved meanwhile is kept. Throws `prd_changed` when the file kept changing.
 */
export function resetStories(file: string, storyIds: readonly string[] | undefined, storeRoot: string): ResetResult {
  const release = lockPrd(file, `reset-${process.pid}`, storeRoot);
  try {
    const target = realpathSync(file);
    removeStaleTempFiles(target);
    for (let attempt = 1; attempt <= WRITE_BACK_ATTEMPTS; attempt++) {
      const version = read(target);
      const next = resetText(version.text, file, storyIds);
      if (!next.changed) return { reset: next.reset, changed: false };
      const written = writeFileAtomic(target, next.text, {
        mode: version.mode,
        beforeRename: () => {
          const now = read(target);
          return now.ino === version.ino && now.text === version.text;
        },
      });
      if (written) return { reset: next.reset, changed: true };
    }
    throw new MeshflowError(
      "prd_changed",
      `${file}: changed by someone else during each of ${WRITE_BACK_ATTEMPTS} attempts to reset it; nothing was reset`,
    );
  } finally {
    release();
  }
}

function read(file: string): { text: string; ino: number; mode: number } {
  const fd = openSync(file, "r");
  try {
    const stat = fstatSync(fd);
    return { text: readFileSync(fd, "utf8"), ino: stat.ino, mode: stat.mode & 0o7777 };
  } finally {
    closeSync(fd);
  }
}
