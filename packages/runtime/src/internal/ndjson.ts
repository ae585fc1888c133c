import { existsSync, readFileSync } from "node:fs";

/**
 * Reads an append-only NDJSON file. A crash can leave the last line half-written: that line is
 * ignored (it was never acknowledged); a broken line anywhere else is an error.
 */
export function readNdjson(file: string): unknown[] {
  if (!existsSync(file)) return [];
  const lines = readFileSync(file, "utf8").split("\n");
  const values: unknown[] = [];
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    try {
      values.push(JSON.parse(line));
    } catch (error) {
      const last = lines.slice(i + 1).every((rest) => !rest.trim());
      if (!last) throw new Error(`${file}:${i + 1}: not valid JSON: ${(error as Error).message}`);
    }
  });
  return values;
}
