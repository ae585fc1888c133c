import type { TokenCount } from "@meshflow/core";
import type { StoryReport } from "@meshflow/runtime/host";
import { type Colors, plainColors, statusMark } from "../colors.js";
import { coded, type Output, plural } from "../output.js";
import { firstLine, formatTokens, gateLines } from "../runView/formatEvent.js";

/** The mark of a story or step status (uncoloured, for one-line lists). */
export const MARK: Readonly<Record<string, string>> = {
  passed: "✓",
  failed: "✗",
  blocked: "⊘",
  skipped: "–",
  running: "…",
  pending: " ",
};

/** Prints stories with their steps, calls, refusals and gate, as `flow status` shows a run (inline or queued). */
export function printStories(output: Output, stories: readonly StoryReport[], c: Colors = plainColors): void {
  const tokens = (t: TokenCount | undefined) => (t ? c.dim(`  [${formatTokens(t)}]`) : "");
  for (const story of stories) {
    output.out(
      `\n${statusMark(story.status, c)} ${story.id}  ${story.status}${story.summary ? `: ${firstLine(story.summary)}` : ""}${tokens(story.tokens)}`,
    );
    for (const step of story.steps) {
      output.out(
        `    ${statusMark(step.status, c)} step ${step.step} ${step.specialist} · ${plural(step.calls, "call")} · ${step.status}${step.summary ? `: ${firstLine(step.summary)}` : ""}${tokens(step.tokens)}`,
      );
      for (const k of step.consults ?? [])
        output.out(
          `    ${"  ".repeat(k.depth)}${statusMark(k.status, c)} consult ${k.specialist} (asked by ${k.by}: ${firstLine(k.question)}) · ${plural(k.calls, "call")} · ${k.status}${k.summary ? `: ${firstLine(k.summary)}` : ""}`,
        );
      for (const r of step.refusals)
        output.out(`        ${c.yellow(`refused ${r.tool}: ${coded(r.code, r.message)}`)}`);
    }
    if (story.gate) output.out(`    ${gateLines(story.gate, c, "      ").join("\n")}`);
  }
}
