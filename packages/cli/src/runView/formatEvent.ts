import { type RunEvent, stripAnsi, type TokenCount } from "@meshflow/core";
import { type Colors, plainColors, statusWord } from "../colors.js";
import { coded, plural } from "../output.js";
import { cacheText, costText } from "./costText.js";

/**
 * `1,234 in (1,000 from cache) + 56 out tokens, 3 turns, $0.0123` (the cost `cost unknown` for a model
 * no price table knows), or "" when no model thought.
 */
export function formatTokens(tokens: TokenCount | undefined): string {
  if (!tokens?.turns) return "";
  const n = (v: number) => v.toLocaleString("en-US");
  const cost = costText(tokens);
  return `${n(tokens.input)} in${cacheText(tokens.cacheRead, tokens.cacheWrite)} + ${n(tokens.output)} out tokens, ${tokens.turns} turn${tokens.turns === 1 ? "" : "s"}${cost ? `, ${cost}` : ""}`;
}

/** The first line of a summary (a failed gate's summary goes on with the command's output), without escape codes. */
export function firstLine(text: string): string {
  return stripAnsi(text.split("\n", 1)[0] ?? "");
}

/**
 * A failed command's last lines, each indented under its gate line: `    | …`. The command's own escape
 * codes go (runs recorded before the gate stripped them): off a terminal they were raw bytes in the log.
 */
function formatTail(tail: string, c: Colors, indent = "    "): string[] {
  return tail
    ? stripAnsi(tail)
        .split("\n")
        .map((line) => `${indent}${c.dim("|")} ${line}`)
    : [];
}

/** A gate's line (first line of its summary) and the failing command's last lines. */
export function gateLines(
  event: { passed: boolean; summary: string; failed?: { command: string; tail: string } },
  c: Colors,
  indent: string,
): string[] {
  const head = `gate ${statusWord(event.passed ? "passed" : "failed", c)}: ${firstLine(event.summary)}`;
  return [head, ...formatTail(event.failed?.tail ?? "", c, indent)];
}

const runStatus = (status: string, c: Colors) =>
  status === "passed" ? c.green(status) : status === "failed" ? c.red(status) : c.yellow(status);

/**
 * One plain line for an event (off a TTY), or undefined for events that need no line; a failed gate's
 * line is followed by the last lines of the failing command's output. `c` colours it (none by default).
 */
export function formatEvent(event: RunEvent, c: Colors = plainColors): string | undefined {
  const withTokens = (tokens: TokenCount | undefined) => (tokens?.turns ? c.dim(` [${formatTokens(tokens)}]`) : "");
  const at = (e: { storyId: string; step: number }) => `${e.storyId} step ${e.step}`;
  switch (event.type) {
    case "run.started":
      return `run ${c.dim(event.runId)} started: ${plural(event.stories.length, "story", "stories")} from ${event.prd}`;
    case "run.resumed":
      return `run ${c.dim(event.runId)} resumed at ${event.state} (${event.prd})`;
    case "story.started":
      return `${event.storyId} started`;
    case "step.started":
      return `${at(event)} → ${event.specialist} (${plural(event.tools, "tool")})`;
    case "consult.started":
      return `${at(event)}   ${"  ".repeat(event.depth - 1)}${event.by} consults ${event.specialist}: ${firstLine(event.question)} ${c.dim(`(${event.consult})`)}`;
    case "consult.done":
      return `${at(event)}   ${event.specialist} answered ${statusWord(event.status, c)}: ${firstLine(event.summary)} ${c.dim(`(${plural(event.calls, "call")}, ${event.consult})`)}${withTokens(event.tokens)}`;
    case "tool.called":
      return `${at(event)}   call ${event.tool}${event.destructive ? c.yellow(" [destructive]") : ""} ${c.dim(`(${event.key})`)}`;
    case "tool.result":
      return `${at(event)}   ${event.isError ? c.red("error") : "ok"} ${event.tool}${c.dim(
        event.replayed ? " (recorded result, not run again)" : ` ${event.durationMs} ms`,
      )}`;
    case "tool.refused":
      return `${at(event)}   ${c.yellow(`refused ${event.tool}${event.destructive ? " [destructive]" : ""}: ${coded(event.code, event.message)}`)}`;
    case "approval.requested":
      return `${at(event)}   ${c.yellow(`awaiting approval: ${event.tool} ${JSON.stringify(event.args)}`)} ${c.dim(`(${event.key}; ${event.rule})`)}${
        event.stale ? c.yellow(` (the decision of ${event.stale.by} was for other arguments)`) : ""
      }`;
    case "approval.decided":
      return `${at(event)}   ${event.approved ? "approved" : c.yellow("denied")} ${event.tool} by ${event.by}${event.reason ? `: ${event.reason}` : ""} ${c.dim(`(${event.key})`)}`;
    case "model.turn": {
      const cost = costText({
        ...(event.costUsd !== undefined ? { costUsd: event.costUsd } : {}),
        ...(event.costUnknown ? { unpricedTurns: 1 } : {}),
      });
      const trimmed = event.trimmedResults
        ? c.dim(` (${plural(event.trimmedResults, "old tool result")} trimmed)`)
        : "";
      return `${at(event)}   model ${event.provider}:${event.model} turn ${event.turn}: ${event.inputTokens} in${cacheText(event.cacheReadTokens, event.cacheWriteTokens)} + ${event.outputTokens} out tokens${
        cost ? `, ${cost}` : ""
      }${trimmed}${c.dim(event.replayed ? " (recorded, not asked again)" : `, ${event.latencyMs} ms`)}${
        event.toolCalls.length ? ` → ${event.toolCalls.join(", ")}` : ""
      }${event.text ? `: “${event.text}”` : ""}`;
    }
    case "step.finished":
      return `${at(event)} ${statusWord(event.status, c)}: ${firstLine(event.summary)}${withTokens(event.tokens)}`;
    case "gate.finished":
      return `${event.storyId} ${gateLines(event, c, "    ").join("\n")}`;
    case "story.finished":
      return `${event.storyId} ${statusWord(event.status, c)}: ${firstLine(event.summary)}${withTokens(event.tokens)}`;
    case "run.finished":
      return `run ${c.dim(event.runId)} ${runStatus(event.status, c)}: ${event.passed} passed, ${event.failed} failed, ${event.blocked} blocked${withTokens(event.tokens)}${event.error ? ` (${coded(event.error.code, event.error.message)})` : ""}`;
  }
}
