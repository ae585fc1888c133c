/** Where one copy of a duplicated block is. */
interface BlockCopy {
  path: string;
  startLine: number;
  endLine: number;
}

/** A block of code that appears in several places. */
export interface DuplicateBlock {
  /** Significant lines in the block (blank and punctuation-only lines do not count). */
  lines: number;
  copies: BlockCopy[];
}

interface Significant {
  text: string;
  line: number;
}

/** Lines that carry code: trimmed, with at least three letters or digits (closing braces do not count). */
function significantLines(text: string): Significant[] {
  const out: Significant[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if ((line.match(/[\p{L}\p{N}]/gu)?.length ?? 0) >= 3) out.push({ text: line.replace(/\s+/g, " "), line: i + 1 });
  });
  return out;
}

/**
 * Finds blocks of at least `minLines` significant lines that occur more than once (in one file or
 * several). Consecutive matching windows merge into one block; copies never overlap themselves.
 */
export function findDuplicates(
  files: ReadonlyArray<{ path: string; text: string }>,
  minLines: number,
): DuplicateBlock[] {
  const perFile = files.map((f) => ({ path: f.path, lines: significantLines(f.text) }));
  const windows = new Map<string, Array<{ file: number; at: number }>>();
  perFile.forEach((f, file) => {
    for (let at = 0; at + minLines <= f.lines.length; at++) {
      const key = f.lines
        .slice(at, at + minLines)
        .map((l) => l.text)
        .join("\n");
      let list = windows.get(key);
      if (!list) {
        list = [];
        windows.set(key, list);
      }
      const previous = list.at(-1);
      // A window overlapping an earlier copy in the same file is the same text sliding, not a copy.
      if (!previous || previous.file !== file || at - previous.at >= minLines) list.push({ file, at });
    }
  });
  const duplicated = new Set<string>();
  for (const [key, list] of windows) if (list.length > 1) duplicated.add(key);
  if (!duplicated.size) return [];

  // Runs of consecutive duplicated windows in each file are one copy of a longer block; copies are
  // grouped by the text of their first window.
  const groups = new Map<string, DuplicateBlock>();
  perFile.forEach((f) => {
    let at = 0;
    while (at + minLines <= f.lines.length) {
      const keyAt = (i: number) =>
        f.lines
          .slice(i, i + minLines)
          .map((l) => l.text)
          .join("\n");
      const first = keyAt(at);
      if (!duplicated.has(first)) {
        at++;
        continue;
      }
      let end = at;
      while (end + 1 + minLines <= f.lines.length && duplicated.has(keyAt(end + 1))) end++;
      const copy: BlockCopy = {
        path: f.path,
        startLine: f.lines[at]?.line ?? 0,
        endLine: f.lines[end + minLines - 1]?.line ?? 0,
      };
      const group = groups.get(first) ?? { lines: end - at + minLines, copies: [] };
      group.lines = Math.min(group.lines, end - at + minLines);
      group.copies.push(copy);
      groups.set(first, group);
      at = end + minLines;
    }
  });
  return [...groups.values()]
    .filter((g) => g.copies.length > 1)
    .sort((a, b) => b.lines - a.lines || (a.copies[0]?.path ?? "").localeCompare(b.copies[0]?.path ?? ""));
}

/** `a.js:10-20, b.js:3-13`. */
export function formatCopies(block: DuplicateBlock): string {
  return block.copies.map((c) => `${c.path}:${c.startLine}-${c.endLine}`).join(", ");
}
