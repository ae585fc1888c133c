import { sumTokens } from "@meshflow/core";
import type { StoryReport } from "@meshflow/runtime/host";
import { type Colors, plainColors, statusWord, stripColors } from "../colors.js";
import { plural } from "../output.js";
import { costCell, costText } from "./costText.js";
import { firstLine } from "./formatEvent.js";

/** Characters of a story's summary the table keeps. */
const SUMMARY_WIDTH = 60;

const shorten = (text: string) => {
  const line = firstLine(text);
  return line.length > SUMMARY_WIDTH ? `${line.slice(0, SUMMARY_WIDTH - 1)}…` : line;
};

const n = (v: number) => v.toLocaleString("en-US");

/** Pads a cell to `width` visible characters (colour codes do not count). */
const pad = (cell: string, width: number, right = false) => {
  const fill = " ".repeat(Math.max(0, width - stripColors(cell).length));
  return right ? `${fill}${cell}` : `${cell}${fill}`;
};

/**
 * The closing summary of `flow run` and `flow resume`: one line per story (id, status, steps, calls,
 * tokens when a model thought, the cost when it is known or known to be unknown, the summary's first
 * line shortened), then the totals (with what the prompt cache served).
 *
 * @example
 * summaryTable(storyReports(record, events)).join("\n");
 * // story   status    steps  calls  summary
 * // US-001  ✓ passed      1      2  all steps passed; 1 verify command passed
 * // 1 story: 1 passed, 0 failed, 0 blocked, 0 skipped
 */
export function summaryTable(stories: readonly StoryReport[], c: Colors = plainColors): string[] {
  const thought = stories.some((s) => s.tokens);
  const priced = stories.some((s) => costCell(s.tokens) !== "");
  const header = [
    "story",
    "status",
    "steps",
    "calls",
    ...(thought ? ["tokens"] : []),
    ...(priced ? ["cost"] : []),
    "summary",
  ];
  const rows = stories.map((s) => [
    s.id,
    statusWord(s.status, c),
    String(s.steps.length),
    String(s.steps.reduce((sum, step) => sum + step.calls, 0)),
    ...(thought ? [s.tokens ? n(s.tokens.input + s.tokens.output) : ""] : []),
    ...(priced ? [costCell(s.tokens)] : []),
    shorten(s.summary),
  ]);
  const numeric = (i: number) => i >= 2 && i < header.length - 1;
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => stripColors(r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : pad(cell, widths[i] ?? 0, numeric(i))))
      .join("  ")
      .trimEnd();
  const count = (status: string) => stories.filter((s) => s.status === status).length;
  const tokens = stories.reduce((sum, s) => sum + (s.tokens ? s.tokens.input + s.tokens.output : 0), 0);
  const total = sumTokens(stories.map((s) => s.tokens));
  const cached = total?.cacheRead ? ` (${n(total.cacheRead)} read from cache)` : "";
  const cost = total && priced ? `, ${costText(total)}` : "";
  const totals = [
    c.green(`${count("passed")} passed`),
    (count("failed") ? c.red : c.dim)(`${count("failed")} failed`),
    (count("blocked") ? c.yellow : c.dim)(`${count("blocked")} blocked`),
    c.dim(`${count("skipped")} skipped`),
  ].join(", ");
  return [
    c.dim(line(header)),
    ...rows.map(line),
    `${plural(stories.length, "story", "stories")}: ${totals}${thought ? `; ${n(tokens)} tokens${cached}${cost}` : ""}`,
  ];
}
