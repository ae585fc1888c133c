import { jsoncParser } from "../../json/jsoncParser.js";

/**
 * Where each element of a PRD's `userStories` is (see `PrdSource`: byte offsets, flattened), found by
 * jsonc-parser's scanner, so a file with comments or trailing commas is read as well as strict JSON.
 * Of two `userStories` keys the last counts, as `JSON.parse` keeps it; no such array: none. Undefined
 * when the bytes are not one whole JSON(C) document (an editor may be half-way through saving it).
 */
export function storySpans(bytes: Buffer): number[] | undefined {
  // One character per byte: offsets into the text are offsets into the file (only ASCII keys are compared).
  const text = bytes.toString("latin1");
  let whole = text.trim().length > 0;
  let [depth, start] = [0, 0];
  let key: string | undefined;
  let found: number[] = [];
  let stories: number[] | undefined;
  const open = (offset: number) => {
    if (stories && depth === 2) start = offset;
    depth++;
  };
  const close = (offset: number, length: number) => {
    depth--;
    if (stories && depth === 2) stories.push(start, offset + length);
    else if (stories && depth === 1) [found, stories] = [stories, undefined];
  };
  jsoncParser().visit(
    text,
    {
      onObjectProperty: (name) => {
        if (depth === 1) key = name;
      },
      onObjectBegin: open,
      onObjectEnd: close,
      onArrayBegin: (offset) => {
        if (depth === 1 && key === "userStories") stories = [];
        open(offset);
      },
      onArrayEnd: close,
      onLiteralValue: (_value, offset, length) => {
        if (stories && depth === 2) stories.push(offset, offset + length);
      },
      onError: () => {
        whole = false;
      },
    },
    { allowTrailingComma: true },
  );
  return whole ? found : undefined;
}
