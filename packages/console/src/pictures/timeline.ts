import type { ConsultReport, StepItem, StepReport, StoryReport } from "@meshflow/runtime/host";

// The run page's timeline, computed from the story reports: one row per story, step, consultation,
// model turn and tool call, each with its start and end in epoch milliseconds, grouped into lanes.
// A lane holds stories that ran one after another: a run with --parallel 3 gets three lanes, a
// queued run one lane per worker (when the run board says which worker ran each story).

/** What a bar stands for. */
type SpanKind = "story" | "step" | "consult" | "turn" | "call";

/** One row of the timeline: a bar from `start` to `end`. */
export interface Span {
  /** Unique in the timeline (`US-001`, `US-001/step1`, `US-001/step1/3`, …). */
  id: string;
  kind: SpanKind;
  /** Nesting: 0 a story, 1 a step, 2 a step's item or consultation, 3 a consultation's item, … */
  depth: number;
  label: string;
  story: string;
  step?: number;
  consult?: string;
  /** A tool call's idempotency key. */
  key?: string;
  status: string;
  start: number;
  end: number;
  /** Still running: `end` is the time the timeline was drawn. */
  open: boolean;
  /** Something to see at a glance: a refused call, a failure, a story waiting for a person's approval. */
  mark?: "refused" | "failed" | "approval";
  /** Lines the hover card shows. */
  detail: string[];
}

/** A lane: the stories that ran in one slot (or on one worker), in the order they started. */
export interface Lane {
  id: string;
  label: string;
  stories: Span[];
  /** The lane's rows: each story followed by its steps, consultations and items. */
  rows: Span[];
}

/** A run's timeline. */
export interface Timeline {
  start: number;
  end: number;
  lanes: Lane[];
}

const ms = (iso: string | undefined): number | undefined => {
  if (!iso) return undefined;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? undefined : t;
};

const FAILED = new Set(["failed", "blocked", "error"]);

function markOf(status: string): Span["mark"] {
  if (status === "refused") return "refused";
  if (FAILED.has(status)) return "failed";
  if (status.includes("approval")) return "approval";
  return undefined;
}

/** An item's bar: a call from its call to its result; a model turn ends when it was recorded. */
function itemSpan(
  item: StepItem,
  parent: { id: string; story: string; step?: number; consult?: string; depth: number },
  index: number,
  now: number,
): Span {
  const at = ms(item.time) ?? now;
  const base = {
    id: `${parent.id}/${index}`,
    depth: parent.depth + 1,
    story: parent.story,
    ...(parent.step !== undefined ? { step: parent.step } : {}),
    ...(parent.consult ? { consult: parent.consult } : {}),
  };
  if (item.kind === "turn") {
    const cost =
      item.costUsd !== undefined ? ` · $${item.costUsd.toFixed(4)}` : item.costUnknown ? " · cost unknown" : "";
    return {
      ...base,
      kind: "turn",
      label: `model turn ${item.turn}`,
      status: "ok",
      start: at - item.latencyMs,
      end: at,
      open: false,
      detail: [
        `${item.provider}:${item.model}`,
        `${item.inputTokens} in / ${item.outputTokens} out${cost}`,
        item.toolCalls.length ? `asked for ${item.toolCalls.join(", ")}` : "asked for no tool",
      ],
    };
  }
  const pending = item.status === "pending";
  const end = item.durationMs !== undefined ? at + item.durationMs : pending ? now : at;
  const mark = markOf(item.status);
  return {
    ...base,
    kind: "call",
    label: item.tool,
    status: item.status,
    ...(item.key ? { key: item.key } : {}),
    start: at,
    end: Math.max(end, at),
    open: pending,
    ...(mark ? { mark } : {}),
    detail: [
      item.refusal ? `refused: ${item.refusal.code} ${item.refusal.message}` : `status ${item.status}`,
      ...(item.key ? [`key ${item.key}`] : []),
      ...(item.destructive ? ["destructive"] : []),
      ...(item.replayed ? ["replayed from the journal"] : []),
    ],
  };
}

function consultSpans(consult: ConsultReport, step: Span, now: number, fallback: number): Span[] {
  const id = `${step.id}/${consult.id}`;
  const start = ms(consult.startedAt) ?? fallback;
  const running = consult.status === "running";
  const items = (consult.items ?? []).map((item, i) =>
    itemSpan(
      item,
      {
        id,
        story: step.story,
        ...(step.step !== undefined ? { step: step.step } : {}),
        consult: consult.id,
        depth: step.depth + consult.depth,
      },
      i,
      now,
    ),
  );
  const mark = markOf(consult.status);
  const span: Span = {
    id,
    kind: "consult",
    depth: step.depth + consult.depth,
    label: `consult ${consult.specialist}`,
    story: step.story,
    ...(step.step !== undefined ? { step: step.step } : {}),
    consult: consult.id,
    status: consult.status,
    start,
    end: ms(consult.finishedAt) ?? (running ? now : Math.max(start, ...items.map((s) => s.end))),
    open: running,
    ...(mark ? { mark } : {}),
    detail: [`asked by ${consult.by}`, consult.question, ...(consult.summary ? [consult.summary] : [])],
  };
  return [span, ...items];
}

function stepSpans(step: StepReport, story: string, now: number, fallback: number): Span[] {
  const id = `${story}/step${step.step}`;
  const start = ms(step.startedAt) ?? fallback;
  const running = step.status === "running";
  const mark = markOf(step.status);
  const span: Span = {
    id,
    kind: "step",
    depth: 1,
    label: `step ${step.step} · ${step.specialist}`,
    story,
    step: step.step,
    status: step.status,
    start,
    end: ms(step.finishedAt) ?? (running ? now : start),
    open: running,
    ...(mark ? { mark } : {}),
    detail: [
      `${step.specialist}: ${step.calls} calls, ${step.refusals.length} refused`,
      ...(step.tokens ? [`${step.tokens.input} / ${step.tokens.output} tokens`] : []),
      ...(step.summary ? [step.summary] : []),
    ],
  };
  const items = (step.items ?? []).map((item, i) => itemSpan(item, span, i, now));
  const consults = (step.consults ?? []).flatMap((c) => consultSpans(c, span, now, start));
  const children = [...items, ...consults];
  if (!span.open && !ms(step.finishedAt) && children.length) span.end = Math.max(...children.map((c) => c.end));
  // Items are ordered by their start, consultations among them where they began.
  children.sort((a, b) => a.start - b.start);
  return [span, ...nestConsultItems(children)];
}

/** Keeps each consultation's own items right under it after the sort by start time. */
function nestConsultItems(children: Span[]): Span[] {
  const own = new Map<string, Span[]>();
  const top: Span[] = [];
  for (const c of children) {
    if (c.kind !== "consult" && c.consult) own.set(c.consult, [...(own.get(c.consult) ?? []), c]);
    else top.push(c);
  }
  return top.flatMap((c) => (c.kind === "consult" && c.consult ? [c, ...(own.get(c.consult) ?? [])] : [c]));
}

/** The spans of one story: the story first, then its steps with their items, or undefined when it never started. */
function storySpans(story: StoryReport, now: number): Span[] | undefined {
  const firstStep = story.steps.map((s) => ms(s.startedAt)).find((t) => t !== undefined);
  const start = ms(story.startedAt) ?? firstStep;
  if (start === undefined) return undefined;
  const running = story.status === "running";
  const steps = story.steps.flatMap((s) => stepSpans(s, story.id, now, start));
  const mark = markOf(story.status);
  const ends = steps.map((s) => s.end);
  const span: Span = {
    id: story.id,
    kind: "story",
    depth: 0,
    label: story.id,
    story: story.id,
    status: story.status,
    start,
    end: ms(story.finishedAt) ?? (running ? now : Math.max(start, ...ends)),
    open: running,
    ...(mark ? { mark } : {}),
    detail: [
      `${story.steps.length} steps`,
      ...(story.tokens ? [`${story.tokens.input} / ${story.tokens.output} tokens`] : []),
      ...(story.tokens?.costUsd !== undefined ? [`$${story.tokens.costUsd.toFixed(4)}`] : []),
      ...(story.summary ? [story.summary] : []),
    ],
  };
  return [span, ...steps];
}

/**
 * The timeline of a run's stories. `now` ends what still runs. `workers` (story id → worker) puts
 * each story in its worker's lane; otherwise a story takes the first lane free when it started.
 *
 * @example
 * const timeline = buildTimeline(detail.tree.stories, { now: Date.now() });
 * timeline.lanes.length; // 3 for a --parallel 3 run that kept three stories going
 */
export function buildTimeline(
  stories: readonly StoryReport[],
  options: { now: number; workers?: Readonly<Record<string, string>> },
): Timeline {
  const spans = stories
    .map((s) => storySpans(s, options.now))
    .filter((s): s is Span[] => s !== undefined)
    .sort((a, b) => (a[0]?.start ?? 0) - (b[0]?.start ?? 0));
  const lanes: Lane[] = [];
  const byWorker = new Map<string, Lane>();
  const freeAt: number[] = [];
  for (const rows of spans) {
    const story = rows[0];
    if (!story) continue;
    const worker = options.workers?.[story.story];
    let lane: Lane | undefined;
    if (worker) {
      lane = byWorker.get(worker);
      if (!lane) {
        lane = { id: `worker:${worker}`, label: `worker ${worker}`, stories: [], rows: [] };
        byWorker.set(worker, lane);
        lanes.push(lane);
      }
    } else {
      let index = freeAt.findIndex((t) => t <= story.start);
      if (index < 0) {
        index = freeAt.length;
        lane = { id: `lane:${index + 1}`, label: `lane ${index + 1}`, stories: [], rows: [] };
        lanes.push(lane);
      }
      freeAt[index] = story.open ? Number.POSITIVE_INFINITY : story.end;
      lane = lanes.filter((l) => l.id.startsWith("lane:"))[index];
    }
    if (!lane) continue;
    lane.stories.push(story);
    lane.rows.push(...rows);
  }
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (const rows of spans)
    for (const s of rows) {
      if (s.start < start) start = s.start;
      if (s.end > end) end = s.end;
    }
  if (!spans.length) start = end = options.now;
  return { start, end: Math.max(end, start + 1), lanes };
}
