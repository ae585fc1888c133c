import type { Span } from "./locateStoryFields.js";

const isSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

/** Index just past the string whose opening quote is at `at`; -1 when it does not end. */
function stringEnd(text: string, at: number): number {
  let i = at + 1;
  for (;;) {
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
    let i = at;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x2c || c === 0x7d || c === 0x5d || isSpace(c)) break;
      i++;
    }
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
 * repeated key, as `JSON.parse` keeps it), found without parsing the values: a marked story's
 * `passes` and `notes` are located in time proportional to the story's length, not the PRD's.
 * Undefined when the text is not shaped like one object. The text is expected to be JSON (it is
 * checked where it came from); only its shape is looked at here.
 */
export function objectMembers(text: string): Map<string, Span> | undefined {
  const members = new Map<string, Span>();
  let i = 0;
  const skip = () => {
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  };
  skip();
  if (text.charCodeAt(i) !== 0x7b) return undefined;
  i++;
  skip();
  if (text.charCodeAt(i) === 0x7d) return members;
  for (;;) {
    skip();
    if (text.charCodeAt(i) !== 0x22) return undefined;
    const keyEnd = stringEnd(text, i);
    if (keyEnd < 0) return undefined;
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    i = keyEnd;
    skip();
    if (text.charCodeAt(i) !== 0x3a) return undefined;
    i++;
    skip();
    const end = valueEnd(text, i);
    if (end < 0) return undefined;
    members.set(key, [i, end]);
    i = end;
    skip();
    const next = text.charCodeAt(i);
    if (next === 0x7d) return members;
    if (next !== 0x2c) return undefined;
    i++;
  }
}

/** How one object's members are written, to add one the same way (see {@link memberAddition}). */
interface MemberLayout {
  /** Index just past the last member's value: where a new member goes. */
  end: number;
  /** What precedes the first key after `{` (a line break and indentation, or nothing). */
  before: string;
  /** What is between the first key and its value (`: `, `:`). */
  colon: string;
}

function memberLayout(text: string, members: ReadonlyMap<string, Span>): MemberLayout | undefined {
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
  return { end, before: text.slice(open + 1, key), colon: text.slice(keyEnd, first[0]) };
}

/**
 * Where and how to add `added` members (key, JSON text of the value) to an object's text: after its
 * last member, written as its first member is (line break, indentation, spacing around the colon).
 * Undefined when the text is not shaped like an object with at least one member.
 */
export function memberAddition(
  text: string,
  members: ReadonlyMap<string, Span>,
  added: ReadonlyArray<readonly [string, string]>,
): { at: number; text: string } | undefined {
  const layout = memberLayout(text, members);
  if (!layout) return undefined;
  const written = added.map(([key, value]) => `,${layout.before}${JSON.stringify(key)}${layout.colon}${value}`);
  return { at: layout.end, text: written.join("") };
}
