import { readFileSync, realpathSync, statSync } from "node:fs";
import { isMeshflowError, jsoncParser, MeshflowError } from "@meshflow/core";
import { locateStoryFields } from "./locateStoryFields.js";
import { wholeJson } from "./replacePrd.js";
import { type PassMark, writeStoriesPassed } from "./writeStoryPassed.js";

/**
 * The marks a PRD's text does not hold: their story is not `passes: true`, or its notes lack the
 * mark's note (an editor saved text it had read before the mark landed); `gone`: those whose story
 * is no longer in `userStories` at all (no write can land them).
 */
export function marksMissing(text: string, marks: readonly PassMark[]): { missing: PassMark[]; gone: PassMark[] } {
  const fields = locateStoryFields(text);
  const missing: PassMark[] = [];
  const gone: PassMark[] = [];
  if (fields)
    for (const mark of marks) {
      const f = fields.get(mark.storyId);
      if (!f) gone.push(mark);
      if (!(f?.passes && text.slice(f.passes[0], f.passes[1]) === "true" && f.notesValue?.includes(mark.note)))
        missing.push(mark);
    }
  else {
    // Not strict JSON (comments, trailing commas): parsed whole.
    const data = jsoncParser().parse(text, [], { allowTrailingComma: true }) as { userStories?: unknown };
    const stories = Array.isArray(data?.userStories) ? (data.userStories as Array<Record<string, unknown> | null>) : [];
    for (const mark of marks) {
      const story = stories.find((s) => s?.id === mark.storyId);
      if (!story) gone.push(mark);
      if (!(story?.passes === true && typeof story.notes === "string" && story.notes.includes(mark.note)))
        missing.push(mark);
    }
  }
  return { missing, gone };
}

/** How long every version of the PRD must hold every mark before the marks count as landed. */
export const SETTLE_QUIET_MS = 250;
/** How long the marks are written again while saves keep dropping them, before they are given up on. */
export const SETTLE_LIMIT_MS = 10_000;

/** What {@link settleMarks} found: the marks the PRD still lacks, and the last write's error if one failed. */
export interface Settled {
  missing: PassMark[];
  error?: unknown;
}

/** What tells one version of a file from the next without reading it. */
const stampOf = (file: string): string => {
  const s = statSync(file, { bigint: true });
  return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
};

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Makes sure every mark is in a PRD someone else has been saving: the marks missing are written again
 * (on the newest text), and the file is watched until every version of it has held every mark for
 * `quietMs` — an editor that read the file before a write and saves after it (its buffer) drops that
 * write's marks a moment later, and those are written again too. Gives up after `limitMs` of saves
 * that keep dropping marks, returning those still missing (none when every mark held).
 */
export function settleMarks(
  file: string,
  marks: readonly PassMark[],
  { quietMs = SETTLE_QUIET_MS, limitMs = SETTLE_LIMIT_MS }: { quietMs?: number; limitMs?: number } = {},
): Settled {
  const start = performance.now();
  let since = start;
  /** The version last found holding every mark. */
  let held: string | undefined;
  let error: unknown;
  for (;;) {
    let missing: PassMark[] = [];
    let gone: PassMark[] = [];
    try {
      const target = realpathSync(file);
      const stamp = stampOf(target);
      if (stamp !== held) {
        const text = readFileSync(target, "utf8");
        // Half of a save in place: looked at again in a moment.
        if (!wholeJson(text)) {
          missing = [...marks];
          error = new MeshflowError("prd_changed", `${file}: not a whole JSON document (is it being saved?)`);
        } else {
          ({ missing, gone } = marksMissing(text, marks));
          if (!missing.length) held = stamp;
        }
      }
    } catch (failure) {
      error = failure;
      missing = [...marks];
    }
    const now = performance.now();
    if (!missing.length && now - since >= quietMs) return { missing: [] };
    // Every missing mark's story was removed from the PRD: nothing to write them on.
    if (gone.length && gone.length === missing.length) return { missing, error: goneError(file, gone) };
    if (now - start >= limitMs) return missing.length ? { missing, error } : { missing: [] };
    if (missing.length) {
      held = undefined;
      since = now;
      try {
        writeStoriesPassed(
          file,
          missing.filter((m) => !gone.includes(m)),
        );
        error = undefined;
      } catch (failure) {
        // Only a file that keeps changing is worth trying again (a full disk, a folder it may not write is not).
        if (!isMeshflowError(failure) || failure.code !== "prd_changed") return { missing, error: failure };
        error = failure;
      }
    }
    // Soon after a save (its marks are written again before its editor reads the file once more), at
    // an uneven pace so the checks do not fall into step with an editor that saves at a fixed one.
    pause(1 + Math.floor(Math.random() * 4));
  }
}

/** The error of marks whose stories are no longer in the PRD. */
const goneError = (file: string, gone: readonly PassMark[]) =>
  new MeshflowError(
    "prd_changed",
    `${file}: ${gone.map((m) => `"${m.storyId}"`).join(", ")} no longer in userStories; not marked passed`,
    { details: { stories: gone.map((m) => m.storyId) } },
  );
