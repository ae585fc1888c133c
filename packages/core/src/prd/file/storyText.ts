import type { Edit, Node, ParseError } from "jsonc-parser";
import { jsoncParser } from "../../json/jsoncParser.js";

/** A change of the fields of one story that the runtime owns: `passes` and `notes`. */
export interface StoryEdit {
  /** The story's id ("" for a story without one, found by `index`). */
  storyId: string;
  /** Its position in `userStories` when known: where it is looked for first. */
  index?: number;
  passes: boolean;
  /** Its notes, given the current ones ("" when it has none, or they are no string). */
  notes: (current: string) => string;
}

/**
 * One story's JSON (or JSONC: comments and trailing commas are kept) text with the edit's `passes`
 * and `notes`: their values replaced where they are (the last of a repeated key, the one `JSON.parse`
 * keeps), or added after the story's last member when absent, written as its first member is (line
 * break, indentation, spacing around the colon: what jsonc-parser's `modify` writes in an indented
 * file, and a story on one line stays on one line). Every other byte is kept. Only the story is parsed
 * (jsonc-parser's tree, with offsets), in time proportional to its length, not the PRD's. Undefined
 * when the text is not one object, or not the story the edit names (an id that is no string is "").
 */
export function setStoryFields(story: string, { storyId, passes, notes }: StoryEdit): string | undefined {
  const { applyEdits, parseTree } = jsoncParser();
  const errors: ParseError[] = [];
  const root = parseTree(story, errors, { allowTrailingComma: true });
  const members = root?.type === "object" && !errors.length ? (root.children ?? []) : [];
  const value = (key: string): Node | undefined =>
    members.findLast((m) => m.children?.[0]?.value === key)?.children?.[1];
  const [notesAt, idAt] = [value("notes"), value("id")];
  const [first, last] = [members[0], members.at(-1)];
  const [firstKey, firstValue] = first?.children ?? [];
  if (!root || !last || !firstKey || !firstValue) return undefined;
  if ((typeof idAt?.value === "string" ? idAt.value : "") !== storyId) return undefined;
  const edits: Edit[] = [];
  let added = "";
  for (const [key, at, text] of [
    ["passes", value("passes"), String(passes)],
    ["notes", notesAt, JSON.stringify(notes(typeof notesAt?.value === "string" ? notesAt.value : ""))],
  ] as const) {
    if (at) edits.push({ offset: at.offset, length: at.length, content: text });
    else {
      // The line break and indentation before the first key, without a comment there.
      const before = story.slice(root.offset + 1, firstKey.offset).replace(/^[\s\S]*(\*\/|\/\/[^\n]*)/, "");
      const colon = story.slice(firstKey.offset + firstKey.length, firstValue.offset);
      added += `,${before}${JSON.stringify(key)}${colon}${text}`;
    }
  }
  // After the last member: after every value replaced above.
  if (added) edits.push({ offset: last.offset + last.length, length: 0, content: added });
  return applyEdits(story, edits);
}
