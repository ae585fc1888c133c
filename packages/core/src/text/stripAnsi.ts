/** Terminal control sequences (CSI: colours, cursor moves) a program writes when it thinks it has a terminal. */
const CSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[ -/]*[@-~]`, "g");
/** The same sequences as a JSON string writes them (`\\u001b[31m`), inside a tool's JSON text. */
const ESCAPED_CSI = /\\u001[bB]\[[0-9;?]*[ -/]*[@-~]/g;

/**
 * `text` without terminal escape sequences, raw or JSON-escaped: a command's output (a test runner's red
 * `⎯⎯⎯`) is kept in events, evidence and journals and shown on pages and in logs, where the codes would
 * be bytes or `\u001b[31m` to read.
 */
export function stripAnsi(text: string): string {
  let out = text.includes("\u001b") ? text.replace(CSI, "") : text;
  if (out.includes("\\u001")) out = out.replace(ESCAPED_CSI, "");
  return out;
}

/** A JSON value with {@link stripAnsi} applied to every string in it, keys and structure unchanged. */
export function stripAnsiDeep<T>(value: T): T {
  if (typeof value === "string") return stripAnsi(value) as T;
  if (Array.isArray(value)) return value.map(stripAnsiDeep) as T;
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, stripAnsiDeep(v)])) as T;
  return value;
}
