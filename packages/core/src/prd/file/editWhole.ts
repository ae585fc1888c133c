import { createHash } from "node:crypto";
import { MeshflowError } from "../../errors/MeshflowError.js";
import { jsoncParser } from "../../json/jsoncParser.js";
import type { Attempt } from "./copyEdited.js";
import { readVersion, replacePrd, wholeJson } from "./replacePrd.js";
import type { StoryEdit } from "./storyText.js";

/**
 * The general write of a PRD that cannot be edited in a stream (comments, trailing commas, `notes` no
 * string, a story without an id): jsonc-parser's edits of the whole text, each story found by its id
 * (else by its index), in the text's own indentation and line ends; the file replaced while it is
 * still the version read.
 */
export function editWhole(target: string, file: string, edits: readonly StoryEdit[]): Attempt {
  const { bytes, ...version } = readVersion(target);
  const original = bytes.toString("utf8");
  if (!wholeJson(original))
    throw new MeshflowError("prd_changed", `${file}: not a whole JSON document (is it being saved?)`);
  const { applyEdits, modify, parse } = jsoncParser();
  const stories = (parse(original, [], { allowTrailingComma: true }) as { userStories?: unknown } | undefined)
    ?.userStories;
  const list: Array<Record<string, unknown> | null> = Array.isArray(stories) ? stories : [];
  const ids = list.map((s) => (typeof s?.id === "string" ? s.id : ""));
  const indent = /\n([ \t]+)"/.exec(original)?.[1] ?? "  ";
  const tabs = indent.startsWith("\t");
  const eol = original.includes("\r\n") ? "\r\n" : "\n";
  const formattingOptions = { insertSpaces: !tabs, tabSize: tabs ? 1 : indent.length, eol };
  let text = original;
  const changed: string[] = [];
  const gone: string[] = [];
  for (const edit of edits) {
    const index = edit.storyId ? ids.indexOf(edit.storyId) : (edit.index ?? -1);
    const story = list[index];
    if (!story || typeof story !== "object") {
      gone.push(edit.storyId);
      continue;
    }
    const fields = { passes: edit.passes, notes: edit.notes(typeof story.notes === "string" ? story.notes : "") };
    const before = text;
    for (const [field, value] of Object.entries(fields))
      if (story[field] !== value)
        text = applyEdits(text, modify(text, ["userStories", index, field], value, { formattingOptions }));
    if (text !== before) changed.push(edit.storyId);
  }
  const read = version.digest;
  if (!changed.length) return { replacement: { kind: "unchanged" }, changed, gone, read, left: { digest: read } };
  const replacement = replacePrd(target, text, version);
  if (replacement.kind === "changed") return { replacement, changed: [], gone, read };
  return { replacement, changed, gone, read, left: { digest: createHash("sha256").update(text).digest("hex") } };
}
