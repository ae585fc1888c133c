/** A `[start, end)` character range of a value in the PRD text. */
export type Span = readonly [number, number];

/** Where one story's `passes` and `notes` values sit in the PRD text. */
export interface StoryFields {
  passes?: Span;
  notes?: Span;
  /** The `notes` value as parsed. */
  notesValue?: string;
}

const WS = new Set([32, 9, 10, 13]);

/**
 * A single pass over strict JSON (what PRD files are) that finds the `passes` and `notes` value
 * ranges of every `userStories[*]` object, keyed by story id. It exists because the completion gate
 * rewrites large PRDs often: a general JSON edit library builds a whole syntax tree per edit, which
 * is an order of magnitude slower. Returns undefined when the text is not the expected shape.
 */
export function locateStoryFields(text: string): Map<string, StoryFields> | undefined {
  let i = 0;
  const ws = () => {
    while (i < text.length && WS.has(text.charCodeAt(i))) i++;
  };
  const fail = (): never => {
    throw new SyntaxError(`unexpected character at ${i}`);
  };
  const string = (): Span => {
    const start = i;
    if (text[i] !== '"') fail();
    i++;
    for (;;) {
      const quote = text.indexOf('"', i);
      if (quote < 0) fail();
      let slashes = 0;
      for (let k = quote - 1; text.charCodeAt(k) === 92; k--) slashes++;
      i = quote + 1;
      if (slashes % 2 === 0) return [start, i];
    }
  };
  const value = (): Span => {
    ws();
    const start = i;
    const c = text[i];
    if (c === '"') return string();
    if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      i++;
      ws();
      if (text[i] === close) {
        i++;
        return [start, i];
      }
      for (;;) {
        if (c === "{") {
          ws();
          string();
          ws();
          if (text[i] !== ":") fail();
          i++;
        }
        value();
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] !== close) fail();
        i++;
        return [start, i];
      }
    }
    while (i < text.length && !WS.has(text.charCodeAt(i)) && !",}]".includes(text[i] ?? "")) i++;
    if (i === start) fail();
    return [start, i];
  };
  const keyOf = (span: Span) => {
    const raw = text.slice(span[0] + 1, span[1] - 1);
    return raw.includes("\\") ? (JSON.parse(text.slice(span[0], span[1])) as string) : raw;
  };

  /** Walks an object's members, handing each key and the value's start to `visit`, which must consume the value. */
  const members = (visit: (key: string) => void) => {
    ws();
    if (text[i] !== "{") fail();
    i++;
    ws();
    if (text[i] === "}") {
      i++;
      return;
    }
    for (;;) {
      ws();
      const key = keyOf(string());
      ws();
      if (text[i] !== ":") fail();
      i++;
      visit(key);
      ws();
      if (text[i] === ",") {
        i++;
        continue;
      }
      if (text[i] !== "}") fail();
      i++;
      return;
    }
  };

  const found = new Map<string, StoryFields>();
  try {
    members((key) => {
      if (key !== "userStories") return void value();
      ws();
      if (text[i] !== "[") return void value();
      i++;
      ws();
      if (text[i] === "]") return void i++;
      for (;;) {
        ws();
        if (text[i] !== "{") value();
        else {
          let id: string | undefined;
          const fields: StoryFields = {};
          members((field) => {
            const span = value();
            if (field === "id" && text[span[0]] === '"') id = keyOf(span);
            else if (field === "passes") fields.passes = span;
            else if (field === "notes") {
              fields.notes = span;
              if (text[span[0]] === '"') fields.notesValue = keyOf(span);
            }
          });
          if (id !== undefined && !found.has(id)) found.set(id, fields);
        }
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] !== "]") fail();
        i++;
        return;
      }
    });
  } catch {
    return undefined;
  }
  return found;
}
