import type { CallItem, ConsultReport, StepItem, StepReport, StoryReport, TurnItem } from "@meshflow/runtime/host";
import { approvalLine, markApprovals, type SpanApproval, type TimelineApprovals } from "./approvalMarks.js";

// The run page's timeline, computed from the story reports: one row per story, step, consultation,
// model turn and tool call, each with its start and end in epoch milliseconds, grouped into lanes.
// A lane holds stories that ran one after another: a run with --parallel 3 gets three lanes, a
// queued run one lane per worker (when the run board says which worker ran each story).

/** What a bar stands for. */
type SpanKind = "story" | "step" | "consult" | "turn" | "call";

/** What a bar was drawn from (its hover card is written from it when shown). */
type SpanSource = StoryReport | StepReport | ConsultReport | StepItem;

/** One row of the timeline: a bar from `start` to `end`. Every span has the same fields (a fast shape). */
export interface Span {
  /** Unique in the timeline (`US-001`, `US-001/step1`, `US-001/step1/3`, …). */
  id: string;
  kind: SpanKind;
  /** Nesting: 0 a story, 1 a step, 2 a step's item or consultation, 3 a consultation's item, … */
  depth: number;
  label: string;
  story: string;
  step: number | undefined;
  consult: string | undefined;
  /** A tool call's idempotency key. */
  key: string | undefined;
  status: string;
  start: number;
  end: number;
  /** Still running: `end` is the time the timeline was drawn. */
  open: boolean;
  /** Something to see at a glance: a refused call, a failure, a story waiting for a person's approval. */
  mark: "refused" | "failed" | "approval" | undefined;
  /** A call that asked a person's approval (and the story it waits in): the tool and what was decided. */
  approval: SpanApproval | undefined;
  source: SpanSource;
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

function markOf(status: string): Span["mark"] {
  if (status === "refused") return "refused";
  if (status === "failed" || status === "blocked" || status === "error") return "failed";
  if (status.includes("approval")) return "approval";
  return undefined;
}

function span(
  kind: SpanKind,
  id: string,
  depth: number,
  label: string,
  parent: { story: string; step: number | undefined; consult: string | undefined },
  status: string,
  start: number,
  end: number,
  open: boolean,
  source: SpanSource,
  key?: string,
): Span {
  return {
    id,
    kind,
    depth,
    label,
    story: parent.story,
    step: parent.step,
    consult: parent.consult,
    key,
    status,
    start,
    end,
    open,
    mark: markOf(status),
    approval: undefined,
    source,
  };
}

/** An item's bar: a call from its call to its result; a model turn ends when it was recorded. */
function itemSpan(item: StepItem, parent: Span, index: number, now: number): Span {
  const at = ms(item.time) ?? now;
  const id = `${parent.id}/${index}`;
  if (item.kind === "turn")
    return span(
      "turn",
      id,
      parent.depth + 1,
      `model turn ${item.turn}`,
      parent,
      "ok",
      at - item.latencyMs,
      at,
      false,
      item,
    );
  const pending = item.status === "pending";
  const waits = item.refusal?.code === "approval_required";
  const end = item.durationMs !== undefined ? at + item.durationMs : pending ? now : at;
  const call = span(
    "call",
    id,
    parent.depth + 1,
    item.tool,
    parent,
    item.status,
    at,
    Math.max(end, at),
    pending,
    item,
    item.key,
  );
  // The run paused at this call until a person decides: no refusal of the step's.
  if (waits) {
    call.mark = "approval";
    call.approval = { state: "waiting", tool: item.tool };
  }
  return call;
}

/** The lines of a bar's hover card. */
export function spanDetail(s: Span): string[] {
  const src = s.source;
  switch (s.kind) {
    case "turn": {
      const t = src as TurnItem;
      const cost = t.costUsd !== undefined ? ` · $${t.costUsd.toFixed(4)}` : t.costUnknown ? " · cost unknown" : "";
      return [
        `${t.provider}:${t.model}`,
        `${t.inputTokens} in / ${t.outputTokens} out${cost}`,
        t.toolCalls.length ? `asked for ${t.toolCalls.join(", ")}` : "asked for no tool",
      ];
    }
    case "call": {
      const c = src as CallItem;
      const lines = s.approval ? [approvalLine(s.approval)] : [];
      if (s.approval?.state !== "waiting")
        lines.push(c.refusal ? `refused: ${c.refusal.code} ${c.refusal.message}` : `status ${c.status}`);
      if (c.key) lines.push(`key ${c.key}`);
      if (c.destructive) lines.push("destructive");
      if (c.replayed) lines.push("replayed from the journal");
      return lines;
    }
    case "consult": {
      const c = src as ConsultReport;
      return [`asked by ${c.by}`, c.question, ...(c.summary ? [c.summary] : [])];
    }
    case "step": {
      const st = src as StepReport;
      return [
        `${st.specialist}: ${st.calls} calls, ${st.refusals.length} refused`,
        ...(st.tokens ? [`${st.tokens.input} / ${st.tokens.output} tokens`] : []),
        ...(st.summary ? [st.summary] : []),
      ];
    }
    default: {
      const story = src as StoryReport;
      return [
        ...(s.approval ? [approvalLine(s.approval)] : []),
        `${story.steps.length} steps`,
        ...(story.tokens ? [`${story.tokens.input} / ${story.tokens.output} tokens`] : []),
        ...(story.tokens?.costUsd !== undefined ? [`$${story.tokens.costUsd.toFixed(4)}`] : []),
        ...(story.summary ? [story.summary] : []),
      ];
    }
  }
}

function consultSpans(consult: ConsultReport, step: Span, now: number, fallback: number, out: Span[]): void {
  const start = ms(consult.startedAt) ?? fallback;
  const running = consult.status === "running";
  const parent = { story: step.story, step: step.step, consult: consult.id };
  const c = span(
    "consult",
    `${step.id}/${consult.id}`,
    step.depth + consult.depth,
    `consult ${consult.specialist}`,
    parent,
    consult.status,
    start,
    start,
    running,
    consult,
  );
  out.push(c);
  let last = start;
  (consult.items ?? []).forEach((item, i) => {
    const s = itemSpan(item, c, i, now);
    if (s.end > last) last = s.end;
    out.push(s);
  });
  c.end = ms(consult.finishedAt) ?? (running ? now : last);
}

function stepSpans(step: StepReport, story: string, now: number, fallback: number, out: Span[]): number {
  const start = ms(step.startedAt) ?? fallback;
  const running = step.status === "running";
  const finished = ms(step.finishedAt);
  const parent = { story, step: step.step, consult: undefined };
  const s = span(
    "step",
    `${story}/step${step.step}`,
    1,
    `step ${step.step} · ${step.specialist}`,
    parent,
    step.status,
    start,
    finished ?? (running ? now : start),
    running,
    step,
  );
  out.push(s);
  // Items in event order, then each consultation with its own items (consultations start within the step).
  const items = step.items ?? [];
  let last = s.end;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (!item) continue;
    const child = itemSpan(item, s, i, now);
    if (child.end > last) last = child.end;
    out.push(child);
  }
  for (const c of step.consults ?? []) {
    const at = out.length;
    consultSpans(c, s, now, start, out);
    for (let i = at; i < out.length; i++) if ((out[i]?.end ?? 0) > last) last = out[i]?.end ?? last;
  }
  if (!running && finished === undefined) s.end = last;
  return s.end;
}

/** The spans of one story: the story first, then its steps with their items, or undefined when it never started. */
function storySpans(story: StoryReport, now: number): Span[] | undefined {
  let start = ms(story.startedAt);
  if (start === undefined)
    for (const s of story.steps) {
      start = ms(s.startedAt);
      if (start !== undefined) break;
    }
  if (start === undefined) return undefined;
  const running = story.status === "running";
  const parent = { story: story.id, step: undefined, consult: undefined };
  const head = span("story", story.id, 0, story.id, parent, story.status, start, start, running, story);
  const out: Span[] = [head];
  let last = start;
  for (const step of story.steps) last = Math.max(last, stepSpans(step, story.id, now, start, out));
  head.end = ms(story.finishedAt) ?? (running ? now : last);
  return out;
}

/**
 * The timeline of a run's stories. `now` ends what still runs; `ended`, the time a run that no longer
 * runs (finished, paused for an approval, interrupted) ended: what it left running ends there and is
 * not drawn as running. `workers` (story id → worker) puts
 * each story in its worker's lane; otherwise a story takes the first lane free when it started.
 * `approvals` (the run's approvals book) marks the calls that wait for, or had, a person's decision.
 *
 * @example
 * const timeline = buildTimeline(detail.tree.stories, { now: Date.now() });
 * timeline.lanes.length; // 3 for a --parallel 3 run that kept three stories going
 */
export function buildTimeline(
  stories: readonly StoryReport[],
  options: { now: number; ended?: number; workers?: Readonly<Record<string, string>>; approvals?: TimelineApprovals },
): Timeline {
  const spans = stories
    .map((s) => storySpans(s, options.ended ?? options.now))
    .filter((s): s is Span[] => s !== undefined)
    .sort((a, b) => (a[0]?.start ?? 0) - (b[0]?.start ?? 0));
  if (options.ended !== undefined) for (const rows of spans) for (const s of rows) s.open = false;
  if (options.approvals) markApprovals(spans, options.approvals);
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
    for (const r of rows) lane.rows.push(r);
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
