import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { didYouMean, jsoncParser, MeshflowError, removeStaleTempFiles } from "@meshflow/core";
import type { ParseError } from "jsonc-parser";
import { lockPrd } from "../store/lockPrd.js";
import { locateStories, type StoryFields } from "./locateStoryFields.js";
import { replacePrd } from "./replacePrd.js";
import { setStoryFields, spliced } from "./storyText.js";
import { formattingOf, readVersion, WRITE_BACK_ATTEMPTS } from "./writeStoryPassed.js";

/** What {@link resetStories} did. */
export interface ResetResult {
  /** Stories set back to `passes: false` with empty `notes` (ids, file order). */
  reset: string[];
  /** Whether the file changed (a story already reset is left as it is). */
  changed: boolean;
}

/** The PRD text with the chosen stories reset; throws `usage` naming an unknown story id. */
function resetText(
  text: string,
  file: string,
  storyIds: readonly string[] | undefined,
): ResetResult & { text: string } {
  const located = locateStories(text);
  // Every story found by its id, in one array: each is edited in place, without parsing the PRD.
  if (located && located.arrays === 1 && located.elements === located.fields.size) {
    const ids = [...located.fields.keys()];
    checkStoryIds(file, ids, storyIds);
    const chosen = storyIds ? ids.filter((id) => storyIds.includes(id)) : ids;
    const next = resetInPlace(text, located.fields, chosen);
    if (next !== undefined) return { text: next, reset: chosen, changed: next !== text };
  }
  const { parse } = jsoncParser();
  const errors: ParseError[] = [];
  const data = parse(text, errors, { allowTrailingComma: true }) as { userStories?: unknown };
  if (errors.length || !Array.isArray(data?.userStories))
    throw new MeshflowError("prd_invalid", `${file}: not a PRD with a userStories array (run flow validate)`);
  const stories = data.userStories as Array<Record<string, unknown> | null>;
  const ids = stories.map((s) => (s && typeof s.id === "string" ? s.id : ""));
  checkStoryIds(file, ids, storyIds);
  const chosen = stories.flatMap((story, index) =>
    story && (!storyIds || storyIds.includes(ids[index] ?? "")) ? [{ story, index, id: ids[index] ?? "" }] : [],
  );
  const next = resetWithEdits(text, chosen);
  return { text: next, reset: chosen.map((c) => c.id), changed: next !== text };
}

/** Throws `usage` for a story id the PRD does not have. */
function checkStoryIds(file: string, ids: readonly string[], storyIds: readonly string[] | undefined): void {
  for (const id of storyIds ?? [])
    if (!ids.includes(id))
      throw new MeshflowError(
        "usage",
        `${file}: no story "${id}" in userStories${ids.length <= 10 ? ` (stories: ${ids.join(", ")})` : didYouMean(id, ids)}`,
      );
}

interface Chosen {
  story: Record<string, unknown>;
  index: number;
  id: string;
}

/**
 * The chosen stories reset in place: each story's object, where the text was located, gets `passes`
 * false and empty `notes` (replaced or added, see {@link setStoryFields}). Undefined when a story
 * cannot be edited that way (its `notes` not a string).
 */
function resetInPlace(
  text: string,
  fields: ReadonlyMap<string, StoryFields>,
  chosen: readonly string[],
): string | undefined {
  const splices: Array<{ start: number; end: number; text: string }> = [];
  for (const id of chosen) {
    const object = fields.get(id)?.object;
    if (!object) return undefined;
    const story = text.slice(object[0], object[1]);
    const reset = setStoryFields(story, id, false, () => "");
    if (reset === undefined) return undefined;
    if (reset !== story) splices.push({ start: object[0], end: object[1], text: reset });
  }
  return spliced(text, splices);
}

/** The general way: jsonc-parser edits of the whole text, two per story at most. */
function resetWithEdits(text: string, chosen: readonly Chosen[]): string {
  const { applyEdits, modify } = jsoncParser();
  const formattingOptions = formattingOf(text);
  let next = text;
  for (const { story, index } of chosen) {
    if (story.passes !== false)
      next = applyEdits(next, modify(next, ["userStories", index, "passes"], false, { formattingOptions }));
    if (story.notes !== "")
      next = applyEdits(next, modify(next, ["userStories", index, "notes"], "", { formattingOptions }));
  }
  return next;
}

/**
 * Sets `passes: false` and clears `notes` of the chosen stories of a PRD (all when `storyIds` is
 * undefined) — `flow reset`. Holds the PRD's lock meanwhile, so it refuses (`prd_busy`) while a run
 * of the PRD is live. As the completion gate's write-back does, it changes only those values (every
 * other byte stays), replaces the file atomically with the same mode, and only if the file is still
 * the version it read (checked right before the rename, see {@link replacePrd}); otherwise it starts
 * over from the new content, so an edit saved meanwhile is kept (a save in place the rename displaced
 * is reset and written again). Throws `prd_changed` when the file kept changing.
 */
export function resetStories(file: string, storyIds: readonly string[] | undefined, storeRoot: string): ResetResult {
  const release = lockPrd(file, `reset-${process.pid}`, storeRoot);
  try {
    const target = realpathSync(file);
    removeStaleTempFiles(target);
    /** A save in place the last rename displaced, and the digest of what that rename left. */
    let displaced: { text: string; over: string } | undefined;
    // A displaced save is always written back, even after the attempts ran out.
    for (
      let attempt = 1;
      attempt <= WRITE_BACK_ATTEMPTS || (displaced && attempt <= 4 * WRITE_BACK_ATTEMPTS);
      attempt++
    ) {
      const version = readVersion(target);
      const redo = displaced?.over === version.digest ? displaced.text : undefined;
      displaced = undefined;
      const next = resetText(redo ?? version.text, file, storyIds);
      if (!next.changed && redo === undefined) return { reset: next.reset, changed: false };
      const replaced = replacePrd(target, next.text, version);
      if (replaced.kind === "replaced") return { reset: next.reset, changed: true };
      if (replaced.kind === "displaced")
        displaced = { text: replaced.text, over: createHash("sha256").update(next.text).digest("hex") };
    }
    throw new MeshflowError(
      "prd_changed",
      `${file}: changed by someone else during each of ${WRITE_BACK_ATTEMPTS} attempts to reset it; nothing was reset`,
    );
  } finally {
    release();
  }
}
