import { type RunEvent, type StepStatus, stripAnsi, type TokenCount } from "@meshflow/core";

// The one place the console turns a run's events into its story → step → item tree. When the
// runtime's shared report builder lands, this file switches to it; nothing else reads raw events.

/** Any event the tree does not know (a future `consult_started`, …), shown with its fields. */
export interface EventNode {
  kind: "event";
  type: string;
  time: string;
  /** The event's fields without `type`, `time` and `runId`. */
  data: Record<string, unknown>;
}

/** One tool call of a step: called, then answered or refused. */
export interface CallNode {
  kind: "call";
  /** Idempotency key (`run/story/stepN/seq`); absent for a refusal before a key was given. */
  key?: string;
  tool: string;
  time: string;
  /** `pending` until a result or refusal is recorded. */
  status: "pending" | "ok" | "error" | "refused";
  argsDigest?: string;
  destructive?: boolean;
  durationMs?: number;
  replayed?: boolean;
  resultDigest?: string;
  refusal?: { code: string; message: string };
}

/** One model turn of a step. */
export interface TurnNode {
  kind: "turn";
  time: string;
  turn: number;
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  latencyMs: number;
  toolCalls: string[];
  replayed: boolean;
  /** Input tokens read from and written to the provider's prompt cache. */
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** A harness's session, and what the turn cost in US dollars (the price table's, or as the harness said). */
  session?: string;
  costUsd?: number;
  /** The model is in no price table: the turn's cost is unknown. */
  costUnknown?: boolean;
  /** Earlier tool results the context budget trimmed before this turn. */
  trimmedResults?: number;
}

/** What a step shows, in event order. */
export type StepItem = CallNode | TurnNode | EventNode;

/** One step of a story; a step run again (resume) replaces its earlier entry. */
export interface StepNode {
  step: number;
  specialist: string;
  /** Tools in the step's repertoire. */
  tools: number;
  status: "running" | StepStatus;
  startedAt: string;
  finishedAt?: string;
  summary?: string;
  calls?: number;
  tokens?: TokenCount;
  /** How many times the step started in this run (more than 1 after a resume). */
  attempts: number;
  items: StepItem[];
}

/** The story's verify gate. */
export interface GateNode {
  passed: boolean;
  commands: number;
  summary: string;
  failed?: { command: string; tail: string };
  time: string;
}

/** One story of the run. */
export interface StoryNode {
  storyId: string;
  status: "pending" | "running" | StepStatus | "skipped";
  summary?: string;
  tokens?: TokenCount;
  steps: StepNode[];
  gate?: GateNode;
  /** Story-level events the tree does not know. */
  events: EventNode[];
}

/** A run as a tree: stories in run order, and the run-level events. */
export interface RunTree {
  runId: string;
  stories: StoryNode[];
  /** Run-level events (started, resumed, finished and any the tree does not know). */
  events: EventNode[];
  tokens?: TokenCount;
}

function eventNode(event: Record<string, unknown>): EventNode {
  const { type, time, runId: _runId, ...data } = event;
  return { kind: "event", type: String(type), time: String(time), data };
}

/**
 * Builds the tree of a run from its events (in order). `storyIds` (the record's stories) gives the
 * order and shows stories that have not started yet. Unknown event types are kept as {@link EventNode}s
 * on the step, story or run they name.
 */
export function buildRunTree(runId: string, events: readonly RunEvent[], storyIds: readonly string[] = []): RunTree {
  const tree: RunTree = { runId, stories: [], events: [] };
  const stories = new Map<string, StoryNode>();
  const story = (id: string): StoryNode => {
    let node = stories.get(id);
    if (!node) {
      node = { storyId: id, status: "pending", steps: [], events: [] };
      stories.set(id, node);
      tree.stories.push(node);
    }
    return node;
  };
  for (const id of storyIds) story(id);
  const stepOf = (storyId: string, step: number): StepNode | undefined =>
    story(storyId).steps.find((s) => s.step === step);
  const calls = new Map<string, CallNode>();

  for (const event of events) {
    switch (event.type) {
      case "story.started":
        story(event.storyId).status = "running";
        break;
      case "step.started": {
        const node = story(event.storyId);
        node.status = "running";
        const earlier = node.steps.findIndex((s) => s.step === event.step);
        const fresh: StepNode = {
          step: event.step,
          specialist: event.specialist,
          tools: event.tools,
          status: "running",
          startedAt: event.time,
          attempts: earlier >= 0 ? (node.steps[earlier]?.attempts ?? 0) + 1 : 1,
          items: [],
        };
        if (earlier >= 0) node.steps[earlier] = fresh;
        else node.steps.push(fresh);
        break;
      }
      case "tool.called": {
        const call: CallNode = {
          kind: "call",
          key: event.key,
          tool: event.tool,
          time: event.time,
          status: "pending",
          argsDigest: event.argsDigest,
          destructive: event.destructive,
        };
        calls.set(event.key, call);
        stepOf(event.storyId, event.step)?.items.push(call);
        break;
      }
      case "tool.result": {
        const call = calls.get(event.key);
        if (!call) break;
        call.status = event.isError ? "error" : "ok";
        call.durationMs = event.durationMs;
        call.resultDigest = event.resultDigest;
        if (event.replayed) call.replayed = true;
        break;
      }
      case "tool.refused": {
        const refusal = { code: event.code, message: event.message };
        const known = event.key ? calls.get(event.key) : undefined;
        if (known) {
          known.status = "refused";
          known.refusal = refusal;
          break;
        }
        const call: CallNode = { kind: "call", tool: event.tool, time: event.time, status: "refused", refusal };
        if (event.key) call.key = event.key;
        if (event.destructive) call.destructive = true;
        stepOf(event.storyId, event.step)?.items.push(call);
        break;
      }
      case "model.turn":
        stepOf(event.storyId, event.step)?.items.push({
          kind: "turn",
          time: event.time,
          turn: event.turn,
          provider: event.provider,
          model: event.model,
          inputTokens: event.inputTokens,
          outputTokens: event.outputTokens,
          latencyMs: event.latencyMs,
          toolCalls: event.toolCalls,
          replayed: event.replayed === true,
          ...(event.session ? { session: event.session } : {}),
          ...(event.costUsd !== undefined ? { costUsd: event.costUsd } : {}),
          ...(event.cacheReadTokens ? { cacheReadTokens: event.cacheReadTokens } : {}),
          ...(event.cacheWriteTokens ? { cacheWriteTokens: event.cacheWriteTokens } : {}),
          ...(event.costUnknown ? { costUnknown: true } : {}),
          ...(event.trimmedResults ? { trimmedResults: event.trimmedResults } : {}),
        });
        break;
      case "step.finished": {
        const step = stepOf(event.storyId, event.step);
        if (!step) break;
        step.status = event.status;
        step.finishedAt = event.time;
        step.summary = stripAnsi(event.summary);
        if (event.calls !== undefined) step.calls = event.calls;
        if (event.tokens) step.tokens = event.tokens;
        break;
      }
      case "gate.finished": {
        const gate: GateNode = {
          passed: event.passed,
          commands: event.commands,
          summary: stripAnsi(event.summary),
          time: event.time,
        };
        // Runs before the gate stripped its command's colours kept them in the tail.
        if (event.failed) gate.failed = { command: event.failed.command, tail: stripAnsi(event.failed.tail) };
        story(event.storyId).gate = gate;
        break;
      }
      case "story.finished": {
        const node = story(event.storyId);
        node.status = event.status;
        node.summary = stripAnsi(event.summary);
        if (event.tokens) node.tokens = event.tokens;
        break;
      }
      case "run.finished":
        if (event.tokens) tree.tokens = event.tokens;
        tree.events.push(eventNode(event as unknown as Record<string, unknown>));
        break;
      default: {
        // Unknown types (and run.started / run.resumed) land where their fields point.
        const raw = event as unknown as Record<string, unknown>;
        const node = eventNode(raw);
        const storyId = typeof raw.storyId === "string" ? raw.storyId : undefined;
        const stepNo = typeof raw.step === "number" ? raw.step : undefined;
        if (storyId && stepNo !== undefined) {
          const step = stepOf(storyId, stepNo);
          if (step) {
            step.items.push(node);
            break;
          }
        }
        if (storyId) story(storyId).events.push(node);
        else tree.events.push(node);
      }
    }
  }
  return tree;
}

/** A call the journal records as started (`journal.ndjson`), with the time it started. */
export interface JournalStarted {
  key: string;
  tool: string;
  argsDigest: string;
  at: string;
}

/**
 * Adds the calls the journal knows but the events do not yet: the store writes events in batches
 * (before each journal line), so a call in flight is in the journal before its `tool.called` event
 * is on disk. Keys are `<runId>/<storyId>/step<N>/<seq>`; a key whose step is not in the tree is left out.
 */
export function addJournalCalls(tree: RunTree, started: readonly JournalStarted[]): RunTree {
  const known = new Set<string>();
  for (const story of tree.stories)
    for (const step of story.steps)
      for (const item of step.items) if (item.kind === "call" && item.key) known.add(item.key);
  for (const entry of started) {
    if (known.has(entry.key)) continue;
    const match = /^.+\/([^/]+)\/step(\d+)\/\d+$/.exec(entry.key);
    if (!match) continue;
    const step = tree.stories.find((s) => s.storyId === match[1])?.steps.find((s) => s.step === Number(match[2]));
    if (step?.status !== "running") continue;
    step.items.push({
      kind: "call",
      key: entry.key,
      tool: entry.tool,
      time: entry.at,
      status: "pending",
      argsDigest: entry.argsDigest,
    });
  }
  return tree;
}
