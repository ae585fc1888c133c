/** A `[start, end)` character range of a value in a JSON text. */
type Span = readonly [number, number];

const isSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

/** Index just past the string whose opening quote is at `at`; -1 when it does not end. */
function stringEnd(text: string, at: number): number {
  for (let i = at + 1; ; ) {
    const quote = text.indexOf('"', i);
    if (quote < 0) return -1;
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    i = quote + 1;
  }
}

/** Index just past the value that starts at `at` (a string, an object, an array or a literal); -1 when it does not end. */
function valueEnd(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === 0x22) return stringEnd(text, at);
  if (first !== 0x7b && first !== 0x5b) {
    const ends = (c: number) => c === 0x2c || c === 0x7d || c === 0x5d || isSpace(c);
    let i = at;
    while (i < text.length && !ends(text.charCodeAt(i))) i++;
    return i > at ? i : -1;
  }
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = stringEnd(text, i) - 1;
      if (i < 0) return -1;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if ((c === 0x7d || c === 0x5d) && --depth === 0) return i + 1;
  }
  return -1;
}

/**
 * Where the value of each top-level member of one JSON object's text is, by key (the last of a
 * repeated key, as `JSON.parse` keeps it), found without parsing the values: a story's `passes` and
 * `notes` are located in time proportional to the story's length, not the PRD's. Undefined when the
 * text is not shaped like one object. The text is expected to be JSON; only its shape is looked at.
 */
export function objectMembers(text: string): Map<string, Span> | undefined {
  const members = new Map<string, Span>();
  let i = 0;
  const skip = () => {
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  };
  skip();
  if (text.charCodeAt(i++) !== 0x7b) return undefined;
  skip();
  if (text.charCodeAt(i) === 0x7d) return members;
  for (;;) {
    skip();
    const keyEnd = text.charCodeAt(i) === 0x22 ? stringEnd(text, i) : -1;
    if (keyEnd < 0) return undefined;
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    i = keyEnd;
    skip();
    if (text.charCodeAt(i++) !== 0x3a) return undefined;
    skip();
    const end = valueEnd(text, i);
    if (end < 0) return undefined;
    members.set(key, [i, end]);
    i = end;
    skip();
    const next = text.charCodeAt(i++);
    if (next === 0x7d) return members;
    if (next !== 0x2c) return undefined;
  }
}

/**
 * Where and how to add `added` members (key, JSON text of the value) to an object's text: after its
 * last member, written as its first member is (line break, indentation, spacing around the colon),
 * byte for byte what jsonc-parser's `modify` writes. Undefined for an object without members.
 */
function memberAddition(
  text: string,
  members: ReadonlyMap<string, Span>,
  added: ReadonlyArray<readonly [string, string]>,
): { at: number; text: string } | undefined {
  let first: Span | undefined;
  let end = -1;
  for (const span of members.values()) {
    if (!first || span[0] < first[0]) first = span;
    end = Math.max(end, span[1]);
  }
  if (!first) return undefined;
  const open = text.indexOf("{");
  let key = open + 1;
  while (key < text.length && isSpace(text.charCodeAt(key))) key++;
  const keyEnd = stringEnd(text, key);
  if (keyEnd < 0 || keyEnd > first[0]) return undefined;
  const before = text.slice(open + 1, key);
  const colon = text.slice(keyEnd, first[0]);
  return { at: end, text: added.map(([k, value]) => `,${before}${JSON.stringify(k)}${colon}${value}`).join("") };
}

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
 * One story's JSON text with the edit's `passes` and `notes`: their values replaced where they are,
 * or added after the story's last member when absent (written as its first member is). Every other
 * byte is kept. Undefined when the text is not the story the edit names or its `notes` is no string.
 */
export function setStoryFields(story: string, { storyId, passes, notes }: StoryEdit): string | undefined {
  const members = objectMembers(story);
  const id = members?.get("id");
  if (!members || !id) return undefined;
  const value = (span: Span): unknown => JSON.parse(story.slice(span[0], span[1]));
  if (value(id) !== storyId) return undefined;
  const passesAt = members.get("passes");
  const notesAt = members.get("notes");
  const current = notesAt ? value(notesAt) : "";
  if (typeof current !== "string") return undefined;
  const fields: Array<[string, Span | undefined, string]> = [
    ["passes", passesAt, String(passes)],
    ["notes", notesAt, JSON.stringify(notes(current))],
  ];
  const edits: Array<{ start: number; end: number; text: string }> = [];
  for (const [, at, text] of fields)
    if (at && story.slice(at[0], at[1]) !== text) edits.push({ start: at[0], end: at[1], text });
  const added = fields.filter(([, at]) => !at).map(([key, , text]) => [key, text] as const);
  if (added.length) {
    // After the last member: after every value replaced above.
    const addition = memberAddition(story, members, added);
    if (!addition) return undefined;
    edits.push({ start: addition.at, end: addition.at, text: addition.text });
  }
  let out = "";
  let at = 0;
  for (const edit of edits.sort((a, b) => a.start - b.start)) {
    out += story.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  return out + story.slice(at);
}
