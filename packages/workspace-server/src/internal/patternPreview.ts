/** Characters of a pattern quoted back in an error: enough to recognise it, never the whole of a huge one. */
const PREVIEW_CHARS = 200;

/**
 * A pattern as an error quotes it: JSON-quoted, cut to its first 200 characters with its length
 * when longer, so a refusal of a megabyte-long pattern is not itself a megabyte.
 */
export function patternPreview(pattern: string): string {
  if (pattern.length <= PREVIEW_CHARS) return JSON.stringify(pattern);
  return `${JSON.stringify(pattern.slice(0, PREVIEW_CHARS))}… (${pattern.length} characters)`;
}

/**
 * Why V8 refused a regular expression, without the pattern it repeats: its message is
 * `Invalid regular expression: /<the whole pattern>/<flags>: <reason>`.
 */
export function regexReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const at = message.lastIndexOf("/: ");
  return at >= 0 ? message.slice(at + 3) : message.slice(0, PREVIEW_CHARS);
}

/** The `details` of an `invalid_pattern` refusal: the pattern (cut like {@link patternPreview}) and its length. */
export function patternDetails(pattern: string): { pattern: string; patternLength: number } {
  return {
    pattern: pattern.length > PREVIEW_CHARS ? `${pattern.slice(0, PREVIEW_CHARS)}…` : pattern,
    patternLength: pattern.length,
  };
}
