import { jsoncParser } from "@meshflow/core";

/** A `[start, end)` character range of a value in the PRD text. */
export type Span = readonly [number, number];

/** Where one story's `passes` and `notes` values sit in the PRD text. */
export interface StoryFields {
  /** The story object itself. */
  object?: Span;
  passes?: Span;
  notes?: Span;
  /** The `notes` value as parsed. */
  notesValue?: string;
}

/** One open object or array while the text is walked. */
interface Frame {
  array: boolean;
  /** The object's current property. */
  prop?: string | undefined;
  /** Where the value started, for a story's compound `passes` or `notes`. */
  start: number;
}

/**
 * The object range and `passes` and `notes` value ranges of every `userStories[*]` object of a strict JSON PRD, keyed by
 * story id (the first story of an id wins), in one pass of jsonc-parser's `visit` — no syntax tree, so
 * the completion gate can rewrite large PRDs often. Returns undefined when the text is not one JSON
 * object (comments and trailing commas included: PRD files are strict JSON).
 */
export function locateStoryFields(text: string): Map<string, StoryFields> | undefined {
  return locateStories(text)?.fields;
}

/** {@link locateStoryFields} and how the `userStories` it found are made. */
export interface LocatedStories {
  fields: Map<string, StoryFields>;
  /** How many `userStories` arrays the PRD's object has (JSON keeps the last of a repeated key). */
  arrays: number;
  /** How many elements they have: more than `fields` when a story has no id, a repeated one, or is no object. */
  elements: number;
}

/** {@link locateStoryFields}, with what tells whether every story was found. */
export function locateStories(text: string): LocatedStories | undefined {
  const found = new Map<string, StoryFields>();
  let arrays = 0;
  let elements = 0;
  const stack: Frame[] = [];
  let failed = false;
  let rootIsObject: boolean | undefined;
  let story: { id?: string; start: number; fields: StoryFields } | undefined;

  /** Inside `userStories[i]` (depth 3: root, the array, the story), the property being read. */
  const storyProp = (): string | undefined =>
    story && stack.length === 3 && stack[0]?.prop === "userStories" ? stack[2]?.prop : undefined;
  const record = (prop: string | undefined, span: Span, value: unknown) => {
    if (!story || prop === undefined) return;
    if (prop === "id") {
      if (typeof value === "string") story.id = value;
    } else if (prop === "passes") story.fields.passes = span;
    else if (prop === "notes") {
      story.fields.notes = span;
      if (typeof value === "string") story.fields.notesValue = value;
      else delete story.fields.notesValue;
    }
  };
  /** Directly in `userStories` (depth 2: root, the array). */
  const inStoriesArray = () => stack.length === 2 && stack[0]?.prop === "userStories" && stack[1]?.array === true;
  const begin = (array: boolean, offset: number) => {
    rootIsObject ??= !array;
    if (array && stack.length === 1 && stack[0]?.prop === "userStories") arrays++;
    if (inStoriesArray()) {
      elements++;
      if (!array) story = { start: offset, fields: {} };
    }
    stack.push({ array, start: offset });
  };
  const end = (offset: number, length: number) => {
    const frame = stack.pop();
    if (stack.length === 2 && story && frame && !frame.array) {
      if (story.id !== undefined && !found.has(story.id))
        found.set(story.id, { ...story.fields, object: [story.start, offset + length] });
      story = undefined;
    } else if (frame && stack.length === 3) record(storyProp(), [frame.start, offset + length], undefined);
  };

  jsoncParser().visit(
    text,
    {
      onObjectBegin: (offset) => begin(false, offset),
      onObjectEnd: end,
      onArrayBegin: (offset) => begin(true, offset),
      onArrayEnd: end,
      onObjectProperty: (property) => {
        const top = stack.at(-1);
        if (top) top.prop = property;
      },
      onLiteralValue: (value: unknown, offset, length) => {
        rootIsObject ??= false;
        if (inStoriesArray()) elements++;
        if (stack.length === 3) record(storyProp(), [offset, offset + length], value);
      },
      onError: () => {
        failed = true;
      },
    },
    { disallowComments: true, allowTrailingComma: false },
  );
  return failed || rootIsObject !== true ? undefined : { fields: found, arrays, elements };
}
