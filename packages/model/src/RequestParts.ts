import { digestOf, type ModelTask, type RecalledLearning, type RecalledStory } from "@meshflow/core";
import { memoryText, storyText } from "./prompt.js";

/**
 * The parts a step's requests are built from, as a cassette keeps them (its first turn's) to say which
 * one changed when a replayed request differs: the system prompt, the story (with its earlier steps and
 * what a consultation asks), what the run remembered, and each tool by name and digest.
 */
export interface RequestParts {
  system: string;
  story: string;
  memory: string;
  tools: Array<{ name: string; digest: string }>;
}

/** The run context a step's prompt was built from (what the run remembered), kept by a cassette for its replay. */
export interface RecordedContext {
  finished: RecalledStory[];
  learnings: RecalledLearning[];
}

/** Whether each of the tool calls of the turn before failed, as a later request sends it. */
export type TurnResults = Array<{ name: string; isError: boolean }>;

/** The parts of a step's requests. */
export function requestParts(task: ModelTask, system: string, tools: ReadonlyArray<{ name: string }>): RequestParts {
  return {
    system,
    story: storyText(task),
    memory: memoryText(task),
    tools: tools.map((t) => ({ name: t.name, digest: digestOf(t) })),
  };
}

/** The context of a task, as a cassette records it. */
export function contextOf(task: ModelTask): RecordedContext {
  return { finished: [...(task.finished ?? [])], learnings: [...(task.learnings ?? [])] };
}

/** Lines shown of each side of a text diff. */
const DIFF_LINES = 3;

/** A short diff of two texts: from the first line that differs, a few lines of each side. */
function textDiff(recorded: string, now: string): string {
  const a = recorded.split("\n");
  const b = now.split("\n");
  let at = 0;
  while (at < a.length && at < b.length && a[at] === b[at]) at++;
  let end = 0;
  while (end < a.length - at && end < b.length - at && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  const side = (lines: string[], mark: string) =>
    lines
      .slice(at, lines.length - end)
      .slice(0, DIFF_LINES)
      .map((l) => `${mark} ${l}`);
  return [...side(a, "-"), ...side(b, "+")].join("\n") || "(only whitespace differs)";
}

/** Tools added, removed or changed between two offers. */
function toolsDiff(recorded: RequestParts["tools"], now: RequestParts["tools"]): string {
  const before = new Map(recorded.map((t) => [t.name, t.digest]));
  const after = new Map(now.map((t) => [t.name, t.digest]));
  const added = [...after.keys()].filter((n) => !before.has(n));
  const removed = [...before.keys()].filter((n) => !after.has(n));
  const changed = [...after.keys()].filter((n) => before.has(n) && before.get(n) !== after.get(n));
  return [
    added.length ? `+ offered now: ${added.join(", ")}` : "",
    removed.length ? `- offered then: ${removed.join(", ")}` : "",
    changed.length ? `~ description or schema changed: ${changed.join(", ")}` : "",
  ]
    .filter(Boolean)
    .join("\n");
}

/**
 * Which part of a request differs from the recorded one, with a short diff: `in its system prompt`,
 * `story`, `tools`, `memory`, or `in an earlier turn` (the results of the turn before: a call that
 * failed then and not now, or the other way round). Undefined when the cassette kept no parts (one
 * recorded before it did).
 */
export function describeDifference(
  recorded: { parts?: RequestParts | undefined; results?: TurnResults | undefined },
  now: { parts?: RequestParts | undefined; results?: TurnResults | undefined },
  turn: number,
): string | undefined {
  const then = recorded.parts;
  const current = now.parts;
  if (!then || !current) return undefined;
  if (then.system !== current.system) return `in its system prompt:\n${textDiff(then.system, current.system)}`;
  if (then.story !== current.story) return `in its story:\n${textDiff(then.story, current.story)}`;
  const tools = toolsDiff(then.tools, current.tools);
  if (tools) return `in its tools:\n${tools}`;
  if (then.memory !== current.memory) return `in its memory:\n${textDiff(then.memory, current.memory)}`;
  if (turn > 1) {
    const show = (results: TurnResults | undefined) =>
      (results ?? []).map((r) => `${r.name} ${r.isError ? "failed" : "succeeded"}`).join(", ") || "no results";
    return `in an earlier turn (the results of turn ${turn - 1}'s tool calls):\n- ${show(recorded.results)}\n+ ${show(now.results)}`;
  }
  return undefined;
}
