import { visit } from "jsonc-parser";

/** A PRD text taken apart without building its value: the fields around the stories, and where each story is. */
export interface PrdTextParts {
  /** The text with the `userStories` array emptied (`[]`): the PRD's own fields. */
  head: string;
  /** `[start, end)` character range of each `userStories` element, flattened: start0, end0, start1, end1, … */
  spans: number[];
}

/**
 * Finds the stories of a strict JSON PRD in one pass of jsonc-parser's `visit` (no value is built), so
 * a PRD of any size is read one story at a time. Undefined when the text is not strict JSON, its root
 * is not an object, or it has no single `userStories` array: the caller then parses it whole, which
 * reports the problem.
 */
export function splitPrdText(text: string): PrdTextParts | undefined {
  const spans: number[] = [];
  let depth = 0;
  let rootIsObject = false;
  let property: string | undefined;
  let inStories = false;
  let arrayStart = -1;
  let arrayEnd = -1;
  let elementStart = -1;
  let usable = true;
  let seen = false;
  visit(
    text,
    {
      onObjectBegin(offset) {
        if (depth === 0) rootIsObject = true;
        if (inStories && depth === 2) elementStart = offset;
        depth++;
      },
      onObjectEnd(offset, length) {
        depth--;
        if (inStories && depth === 2) spans.push(elementStart, offset + length);
      },
      onArrayBegin(offset) {
        if (depth === 1 && property === "userStories") {
          inStories = true;
          arrayStart = offset;
        } else if (inStories && depth === 2) elementStart = offset;
        depth++;
      },
      onArrayEnd(offset, length) {
        depth--;
        if (inStories && depth === 1) {
          inStories = false;
          arrayEnd = offset + length;
        } else if (inStories && depth === 2) spans.push(elementStart, offset + length);
      },
      onLiteralValue(_value, offset, length) {
        if (inStories && depth === 2) spans.push(offset, offset + length);
      },
      onObjectProperty(name) {
        if (depth !== 1) return;
        // A second `userStories` key: JSON.parse keeps the last one; the whole parse decides.
        if (name === "userStories" && seen) usable = false;
        if (name === "userStories") seen = true;
        property = name;
      },
      onError() {
        usable = false;
      },
    },
    { disallowComments: true, allowTrailingComma: false },
  );
  if (!usable || !rootIsObject || arrayStart < 0 || arrayEnd < 0) return undefined;
  return { head: `${text.slice(0, arrayStart)}[]${text.slice(arrayEnd)}`, spans };
}
