import { readFileSync, statSync } from "node:fs";
import { MeshflowError } from "@meshflow/core";
import { applyEdits, type FormattingOptions, modify, parse } from "jsonc-parser";
import { writeFileAtomic } from "../internal/atomicWrite.js";

function formattingOf(text: string): FormattingOptions {
  const indent = /\n([ \t]+)"/.exec(text)?.[1] ?? "  ";
  return {
    insertSpaces: !indent.startsWith("\t"),
    tabSize: indent.startsWith("\t") ? 1 : indent.length,
    eol: text.includes("\r\n") ? "\r\n" : "\n",
  };
}

/**
 * Marks one story as passed in the PRD file: `passes: true` and a note appended to `notes`. Only the
 * completion gate calls this. The file is re-read and edited in place (jsonc-parser), so every other
 * byte stays as it was (key order, unknown fields, indentation, line ends), then replaced atomically
 * (temp file + rename, same mode). Idempotent: a story already marked by this note is left alone.
 */
export function writeStoryPassed(file: string, storyId: string, note: string): { changed: boolean } {
  const text = readFileSync(file, "utf8");
  const data = parse(text) as { userStories?: unknown };
  const stories = Array.isArray(data?.userStories) ? (data.userStories as Array<Record<string, unknown>>) : [];
  const index = stories.findIndex((s) => s && typeof s === "object" && s.id === storyId);
  if (index < 0)
    throw new MeshflowError(
      "prd_changed",
      `${file}: story "${storyId}" is no longer in userStories; not marked passed`,
    );
  const story = stories[index] ?? {};
  const notes = typeof story.notes === "string" ? story.notes : "";
  if (story.passes === true && notes.includes(note)) return { changed: false };
  const formattingOptions = formattingOf(text);
  let next = applyEdits(text, modify(text, ["userStories", index, "passes"], true, { formattingOptions }));
  const newNotes = notes.trim() ? `${notes.trimEnd()} ${note}` : note;
  next = applyEdits(next, modify(next, ["userStories", index, "notes"], newNotes, { formattingOptions }));
  writeFileAtomic(file, next, { mode: statSync(file).mode & 0o7777 });
  return { changed: true };
}
