import type { Span } from "./locateStoryFields.js";
import { memberAddition, objectMembers } from "./objectMembers.js";

/**
 * One story's JSON text with its `passes` and `notes` set: their values replaced where they are, or
 * added after the story's last member when absent (written as its first member is). Every other byte
 * is kept. `notes` gets the current notes ("" when absent). Undefined when the text is not the story
 * `storyId` or its `notes` is not a string.
 */
export function setStoryFields(
  story: string,
  storyId: string,
  passes: boolean,
  notes: (current: string) => string,
): string | undefined {
  const members = objectMembers(story);
  const id = members?.get("id");
  if (!members || !id) return undefined;
  const value = (span: Span): unknown => JSON.parse(story.slice(span[0], span[1]));
  if (value(id) !== storyId) return undefined;
  const passesAt = members.get("passes");
  const notesAt = members.get("notes");
  const current = notesAt ? value(notesAt) : "";
  if (typeof current !== "string") return undefined;
  const passesText = String(passes);
  const notesText = JSON.stringify(notes(current));
  const edits: Array<{ start: number; end: number; text: string }> = [];
  if (passesAt && story.slice(passesAt[0], passesAt[1]) !== passesText)
    edits.push({ start: passesAt[0], end: passesAt[1], text: passesText });
  if (notesAt && story.slice(notesAt[0], notesAt[1]) !== notesText)
    edits.push({ start: notesAt[0], end: notesAt[1], text: notesText });
  const added: Array<readonly [string, string]> = [];
  if (!passesAt) added.push(["passes", passesText]);
  if (!notesAt) added.push(["notes", notesText]);
  if (added.length) {
    // After the last member: after every value replaced above.
    const addition = memberAddition(story, members, added);
    if (!addition) return undefined;
    edits.push({ start: addition.at, end: addition.at, text: addition.text });
  }
  return edits.length ? spliced(story, edits) : story;
}

/** A text with non-overlapping edits (each replacing `[start, end)` with `text`) applied. */
export function spliced(text: string, edits: Array<{ start: number; end: number; text: string }>): string {
  edits.sort((a, b) => a.start - b.start);
  let out = "";
  let at = 0;
  for (const edit of edits) {
    out += text.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  return out + text.slice(at);
}
