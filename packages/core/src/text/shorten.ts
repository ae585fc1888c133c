/** The most characters of a model's or harness's words a `model.turn` event carries. */
const TURN_TEXT_CHARS = 240;

/**
 * Text on one line, at most `max` characters: runs of white space become one space, and a longer
 * text ends in `…`.
 */
export function shorten(text: string, max = TURN_TEXT_CHARS): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, Math.max(0, max - 1))}…`;
}
