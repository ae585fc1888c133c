import { distance } from "fastest-levenshtein";

/**
 * Names from `candidates` close enough to `input` to be what the user meant, closest first.
 * Case is ignored; a candidate containing the input (or contained by it) also counts.
 */
export function suggest(input: string, candidates: Iterable<string>, max = 3): string[] {
  const needle = input.toLowerCase();
  const limit = Math.max(2, Math.floor(needle.length / 3));
  const scored: { name: string; score: number }[] = [];
  for (const name of candidates) {
    const hay = name.toLowerCase();
    const d = distance(needle, hay);
    const contains = hay.includes(needle) || needle.includes(hay);
    if (d <= limit || contains) scored.push({ name, score: contains ? Math.min(d, limit) - 0.5 : d });
  }
  return scored
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
    .slice(0, max)
    .map((s) => s.name);
}

/** ` (did you mean "a" or "b"?)`, or an empty string when there is nothing to suggest. */
export function didYouMean(input: string, candidates: Iterable<string>): string {
  const found = suggest(input, candidates);
  if (!found.length) return "";
  const quoted = found.map((s) => `"${s}"`);
  const last = quoted.pop();
  return ` (did you mean ${quoted.length ? `${quoted.join(", ")} or ${last}` : last}?)`;
}
