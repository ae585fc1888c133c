import { type RunEvent, stripAnsiDeep, type TokenCount } from "@meshflow/core";
import { type StepItem, type StoryReport, storyReports } from "@meshflow/runtime/host";

// The console's run page is the runtime's story reports (the same ones `flow status` prints), with
// their detail: each step's and each consultation's calls and turns. Only the run-level events are
// read here. Summaries and a failed gate's output tail may hold a terminal's colour codes (a test
// runner's); the page shows them without.

/** A run-level event (started, resumed, finished, or one of a type the page does not know), with its fields. */
export interface EventNode {
  kind: "event";
  type: string;
  time: string;
  /** The event's fields without `type`, `time` and `runId`. */
  data: Record<string, unknown>;
}

/** A run as its page shows it: the story reports in run order, and the run-level events. */
export interface RunTree {
  runId: string;
  stories: StoryReport[];
  /** Events that name no story. */
  events: EventNode[];
  tokens?: TokenCount;
}

/**
 * The page of a run from its events (in order): `storyIds` (the record's stories) gives the order and
 * shows stories that have not started yet.
 */
export function buildRunTree(runId: string, events: readonly RunEvent[], storyIds: readonly string[] = []): RunTree {
  const tree: RunTree = {
    runId,
    stories: stripAnsiDeep(storyReports({ stories: [...storyIds] }, events, { detail: true })),
    events: [],
  };
  for (const event of events) {
    if ("storyId" in event) continue;
    const { type, time, runId: _runId, ...data } = event as unknown as Record<string, unknown>;
    tree.events.push({ kind: "event", type: String(type), time: String(time), data });
    if (event.type === "run.finished" && event.tokens) tree.tokens = event.tokens;
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
 * is on disk. Keys are `<runId>/<storyId>/step<N>/<seq>`; a key whose step is not running is left out.
 */
export function addJournalCalls(tree: RunTree, started: readonly JournalStarted[]): RunTree {
  const known = new Set<string>();
  const holders = (items: StepItem[] | undefined) => {
    for (const item of items ?? []) if (item.kind === "call" && item.key) known.add(item.key);
  };
  for (const story of tree.stories)
    for (const step of story.steps) {
      holders(step.items);
      for (const consult of step.consults ?? []) holders(consult.items);
    }
  for (const entry of started) {
    if (known.has(entry.key)) continue;
    const match = /^.+\/([^/]+)\/step(\d+)\/\d+$/.exec(entry.key);
    if (!match) continue;
    const step = tree.stories.find((s) => s.id === match[1])?.steps.find((s) => s.step === Number(match[2]));
    if (step?.status !== "running") continue;
    step.items?.push({
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
