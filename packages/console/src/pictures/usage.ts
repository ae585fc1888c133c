import type { StepItem, StoryReport, TurnItem } from "@meshflow/runtime/host";

// Tokens and cost of a run over time (every model turn, steps' and consultations', in time order,
// summed as they came), and two runs of one PRD side by side per story.

/** The run's totals after one more model turn. */
export interface UsagePoint {
  /** When the turn was recorded (epoch ms). */
  t: number;
  input: number;
  output: number;
  costUsd: number;
  /** Turns so far whose cost no price table knows. */
  unpricedTurns: number;
  story: string;
}

function turnsOf(items: readonly StepItem[] | undefined): TurnItem[] {
  return (items ?? []).filter((i): i is TurnItem => i.kind === "turn");
}

/**
 * The run's running totals, one point per model turn in time order.
 *
 * @example
 * usageSeries(detail.tree.stories).at(-1); // { input, output, costUsd, … } of the whole run
 */
export function usageSeries(stories: readonly StoryReport[]): UsagePoint[] {
  const turns: Array<{ t: number; turn: TurnItem; story: string }> = [];
  for (const story of stories)
    for (const step of story.steps) {
      for (const turn of turnsOf(step.items)) turns.push({ t: Date.parse(turn.time), turn, story: story.id });
      for (const c of step.consults ?? [])
        for (const turn of turnsOf(c.items)) turns.push({ t: Date.parse(turn.time), turn, story: story.id });
    }
  turns.sort((a, b) => a.t - b.t);
  const points: UsagePoint[] = [];
  let input = 0;
  let output = 0;
  let cost = 0;
  let unpriced = 0;
  for (const { t, turn, story } of turns) {
    input += turn.inputTokens;
    output += turn.outputTokens;
    cost += turn.costUsd ?? 0;
    if (turn.costUnknown) unpriced++;
    points.push({ t, input, output, costUsd: cost, unpricedTurns: unpriced, story });
  }
  return points;
}

/** One story's figures in one run. */
export interface StoryFigures {
  status: string;
  durationMs?: number;
  /** Input and output tokens together. */
  tokens: number;
  costUsd?: number;
}

/** One story of two runs of the same PRD. */
export interface StoryComparison {
  story: string;
  a?: StoryFigures;
  b?: StoryFigures;
}

function figures(story: StoryReport): StoryFigures {
  const start = story.startedAt ? Date.parse(story.startedAt) : Number.NaN;
  const end = story.finishedAt ? Date.parse(story.finishedAt) : Number.NaN;
  return {
    status: story.status,
    ...(Number.isNaN(end - start) ? {} : { durationMs: end - start }),
    tokens: (story.tokens?.input ?? 0) + (story.tokens?.output ?? 0),
    ...(story.tokens?.costUsd !== undefined ? { costUsd: story.tokens.costUsd } : {}),
  };
}

/**
 * Two runs' stories side by side: `a`'s order first, then stories only `b` ran.
 *
 * @example
 * compareRuns(before.tree.stories, after.tree.stories); // [{ story: "US-001", a: {…}, b: {…} }, …]
 */
export function compareRuns(a: readonly StoryReport[], b: readonly StoryReport[]): StoryComparison[] {
  const rows = new Map<string, StoryComparison>();
  for (const s of a) rows.set(s.id, { story: s.id, a: figures(s) });
  for (const s of b) rows.set(s.id, { ...(rows.get(s.id) ?? { story: s.id }), b: figures(s) });
  return [...rows.values()];
}
