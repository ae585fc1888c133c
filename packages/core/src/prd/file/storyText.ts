import type { Edit, Node, ParseError } from "jsonc-parser";
import { jsoncParser } from "../../json/jsoncParser.js";

/** A change of the fields of one story that the runtime owns: `passes` and `notes`. */
export interface StoryEdit {
  /** The story's id ("" for a story without one, found by `index`). */
  storyId: string;
  /** Its position in `userStories` when known: where it is looked for first. */
  index?: number;
  passes: boolean;
  /** Its notes, given the current ones ("" when it has none). */
  notes: (current: string) => string;
}

/**
 * One story's JSON text with the edit's `passes` and `notes`: their values replaced where they are
 * (the last of a repeated key, the one `JSON.parse` keeps), or added after the story's last member
 * when absent, written as its first member is (line break, indentation, spacing around the colon:
 * what jsonc-parser's `modify` writes in an indented file, and a story on one line stays on one line).
 * Every other byte is kept. Only the story is parsed (jsonc-parser's tree, with offsets), in time
 * proportional to its length, not the PRD's. Undefined when the text is not one strict JSON object,
 * not the story the edit names, or its `notes` is no string.
 */
export function setStoryFields(story: string, { storyId, passes, notes }: StoryEdit): string | undefined {
  const { applyEdits, parseTree } = jsoncParser();
  const errors: ParseError[] = [];
  const root = parseTree(story, errors, { disallowComments: true });
  const members = root?.type === "object" && !errors.length ? (root.children ?? []) : [];
  const value = (key: string): Node | undefined =>
    members.findLast((m) => m.children?.[0]?.value === key)?.children?.[1];
  const notesAt = value("notes");
  const current: unknown = notesAt ? notesAt.value : "";
  const [first, last] = [members[0], members.at(-1)];
  const [firstKey, firstValue] = first?.children ?? [];
  if (!root || !last || !firstKey || !firstValue) return undefined;
  if (value("id")?.value !== storyId || typeof current !== "string") return undefined;
  const edits: Edit[] = [];
  let added = "";
  for (const [key, at, text] of [
    ["passes", value("passes"), String(passes)],
    ["notes", notesAt, JSON.stringify(notes(current))],
  ] as const) {
    if (at) edits.push({ offset: at.offset, length: at.length, content: text });
    else {
      const before = story.slice(root.offset + 1, firstKey.offset);
      const colon = story.slice(firstKey.offset + firstKey.length, firstValue.offset);
      added += `,${before}${JSON.stringify(key)}${colon}${text}`;
    }
  }
  // After the last member: after every value replaced above.
  if (added) edits.push({ offset: last.offset + last.length, length: 0, content: added });
  return applyEdits(story, edits);
}
