import type { RunEvent, TokenCount } from "@meshflow/core";
import { coded, plural } from "../output.js";

/** `1,234 in + 56 out tokens, 3 turns`, or "" when no model thought. */
export function formatTokens(tokens: TokenCount | undefined): string {
  if (!tokens?.turns) return "";
  const n = (v: number) => v.toLocaleString("en-US");
  return `${n(tokens.input)} in + ${n(tokens.output)} out tokens, ${tokens.turns} turn${tokens.turns === 1 ? "" : "s"}`;
}

const withTokens = (tokens: TokenCount | undefined) => (tokens?.turns ? ` [${formatTokens(tokens)}]` : "");

const mark = { passed: "✓", failed: "✗", blocked: "⊘", skipped: "–" } as const;

/** One plain line for an event (off a TTY), or undefined for events that need no line. */
export function formatEvent(event: RunEvent): string | undefined {
  switch (event.type) {
    case "run.started":
      return `run ${event.runId} started: ${plural(event.stories.length, "story", "stories")} from ${event.prd}`;
    case "run.resumed":
      return `run ${event.runId} resumed at ${event.state} (${event.prd})`;
    case "story.started":
      return `${event.storyId} started`;
    case "step.started":
      return `${event.storyId} step ${event.step} → ${event.specialist} (${event.tools} tools)`;
    case "tool.called":
      return `${event.storyId} step ${event.step}   call ${event.tool}${event.destructive ? " [destructive]" : ""} (${event.key})`;
    case "tool.result":
      return `${event.storyId} step ${event.step}   ${event.isError ? "error" : "ok"} ${event.tool}${
        event.replayed ? " (recorded result, not run again)" : ` ${event.durationMs} ms`
      }`;
    case "tool.refused":
      return `${event.storyId} step ${event.step}   refused ${event.tool}${event.destructive ? " [destructive]" : ""}: ${coded(event.code, event.message)}`;
    case "model.turn":
      return `${event.storyId} step ${event.step}   model ${event.provider}:${event.model} turn ${event.turn}: ${event.inputTokens} in + ${event.outputTokens} out tokens${
        event.replayed ? " (recorded, not asked again)" : `, ${event.latencyMs} ms`
      }${event.toolCalls.length ? ` → ${event.toolCalls.join(", ")}` : ""}`;
    case "step.finished":
      return `${event.storyId} step ${event.step} ${mark[event.status]} ${event.status}: ${event.summary}${withTokens(event.tokens)}`;
    case "gate.finished":
      return `${event.storyId} gate ${event.passed ? "✓ passed" : "✗ failed"}: ${event.summary}`;
    case "story.finished":
      return `${event.storyId} ${mark[event.status]} ${event.status}: ${event.summary}${withTokens(event.tokens)}`;
    case "run.finished":
      return `run ${event.runId} ${event.status}: ${event.passed} passed, ${event.failed} failed, ${event.blocked} blocked${withTokens(event.tokens)}${event.error ? ` (${coded(event.error.code, event.error.message)})` : ""}`;
  }
}
