/**
 * A case-insensitive pattern matching `phrase` as whole words (a hyphen counts as part of a word, any
 * run of spaces in the phrase matches any run of whitespace): `sign in` matches "Sign  in", not "signing".
 */
export function wordPattern(phrase: string): RegExp {
  const quoted = phrase.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\s+/g, "\\s+");
  return new RegExp(`(^|[^\\w-])${quoted}($|[^\\w-])`, "i");
}
