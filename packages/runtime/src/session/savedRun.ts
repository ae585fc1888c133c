import { MeshflowError } from "@meshflow/core";
import type { AnyActorRef, Snapshot, StateValue } from "xstate";
import { type ChiefContext, storyActorId } from "../machine/chiefAnalyst.js";
import type { StoryContext } from "../machine/storyActor.js";
import type { RunPlan } from "../RunPlan.js";

/** A story actor as `snapshot.ndjson` keeps it: its phase (or `free`), its context and its open consultations. */
interface SavedStory {
  value: StateValue;
  context: StoryContext;
  /** xstate's persisted consultation children, only while one is under way. */
  children?: Record<string, unknown>;
}

/**
 * What `snapshot.ndjson` holds per line: the chief analyst's state value and context, and each of its
 * story actors by id (`story-1` …; the chief's `actors` says which story each works).
 */
export interface PersistedRun {
  value: StateValue;
  context: ChiefContext;
  stories: Record<string, SavedStory>;
}

/**
 * The run's state now, from the chief analyst's snapshot and its story actors': xstate's snapshots
 * are immutable, so the objects captured here are the state of now whenever they are written. A story
 * with a consultation under way is taken with xstate's persisted snapshot (its children included).
 */
export function captureRun(snapshot: { value: StateValue; context: ChiefContext; children: object }): PersistedRun {
  const stories: Record<string, SavedStory> = {};
  const children = snapshot.children as Record<string, AnyActorRef>;
  for (const id in children) {
    const child = children[id];
    if (!child) continue;
    const story = child.getSnapshot() as { value: StateValue; context: StoryContext; children: object };
    stories[id] = hasChildren(story.children)
      ? {
          value: story.value,
          context: story.context,
          children: (child.getPersistedSnapshot() as unknown as { children: Record<string, unknown> }).children,
        }
      : { value: story.value, context: story.context };
  }
  return { value: snapshot.value, context: snapshot.context, stories };
}

/** True when an actor has a child; cheap for the usual empty object. */
function hasChildren(children: object): boolean {
  for (const _ in children) return true;
  return false;
}

/** xstate's persisted form of the run, for `createActor(machine, { snapshot })`. */
export function restorableRun(saved: PersistedRun): Snapshot<unknown> {
  const children: Record<string, unknown> = {};
  for (const [id, story] of Object.entries(saved.stories))
    children[id] = { src: "story", snapshot: persistedMachine(story.value, story.context, story.children ?? {}) };
  return persistedMachine(saved.value, saved.context, children) as Snapshot<unknown>;
}

function persistedMachine(value: StateValue, context: unknown, children: Record<string, unknown>) {
  return { status: "active", value, context, children, historyValue: {}, output: undefined, error: undefined };
}

/** The fields of a context of a run recorded before stories were child actors. */
interface OlderContext extends Omit<ChiefContext, "next" | "actors"> {
  /** One story at a time: the current story, step and results. */
  story?: number;
  step?: number;
  steps?: StoryContext["steps"];
  storyStatus?: StoryContext["storyStatus"];
  storySummary?: string;
  gate?: StoryContext["gate"];
  /** `--parallel`: the next story and the stories in progress. */
  next?: number;
  slots?: Array<Omit<StoryContext, "runId"> & { phase: string }>;
}

/**
 * The saved state of a run, in today's form. A run recorded before stories were child actors (its
 * context has the current `story`, or the parallel `slots`) is carried over: each story in progress
 * becomes a story actor with the same phase and results, and open consultations move under the story
 * that asked for them. Throws `usage` for a state of neither form.
 */
export function upgradeSaved(saved: unknown, plan: RunPlan): PersistedRun | undefined {
  if (saved === undefined || saved === null) return undefined;
  const run = saved as { value: StateValue; context: OlderContext; stories?: unknown; children?: unknown };
  if (run.stories && typeof run.stories === "object") return run as PersistedRun;
  const { context } = run;
  if (!context || typeof context !== "object")
    throw new MeshflowError("usage", "the run's saved state is of an unknown form; start a new run");
  const { story, step, steps, storyStatus, storySummary, gate, slots, next, ...tallies } = context;
  const inProgress: Array<Omit<StoryContext, "runId"> & { phase: string }> = Array.isArray(slots)
    ? slots
    : typeof story === "number" && ["working", "gating", "concluding"].includes(String(run.value))
      ? [
          {
            story,
            phase: String(run.value),
            step: step ?? 0,
            steps: steps ?? [],
            storyStatus: storyStatus ?? "passed",
            storySummary: storySummary ?? "",
            gate,
          },
        ]
      : [];
  const consults = Object.entries((run.children ?? {}) as Record<string, { snapshot?: { context?: unknown } }>);
  const stories: Record<string, SavedStory> = {};
  inProgress.forEach(({ phase, ...slot }, k) => {
    const id = plan.stories[slot.story]?.id ?? String(slot.story);
    const own = consults.filter(([, c]) => (c.snapshot?.context as { storyId?: string })?.storyId === id);
    stories[storyActorId(k)] = {
      value: phase,
      context: { runId: tallies.runId, ...slot },
      ...(own.length ? { children: Object.fromEntries(own) } : {}),
    };
  });
  const preflight = run.value === "preflight";
  return {
    value: preflight ? "preflight" : "running",
    context: {
      ...tallies,
      next: next ?? (typeof story === "number" ? story + (inProgress.length ? 1 : 0) : 0),
      actors: inProgress.map((s) => s.story),
    },
    stories,
  };
}

/**
 * The state of a saved run as `run.resumed` names it: its stories' phases (each named by `idOf` its
 * plan index, when more than one is in progress) and open consultations.
 */
export function describeSaved(
  saved: PersistedRun | undefined,
  idOf: (story: number) => string = (story) => `#${story}`,
): string {
  if (!saved) return "start";
  const stories = Object.values(saved.stories).filter((s) => s.value !== "free");
  const value =
    stories.length === 0
      ? JSON.stringify(saved.value)
      : stories.length === 1
        ? JSON.stringify(stories[0]?.value)
        : stories.map((s) => `${idOf(s.context.story)} ${JSON.stringify(s.value)}`).join(", ");
  const open = stories.flatMap((s) => Object.keys(s.children ?? {}));
  return open.length ? `${value} in consultation ${open.join(", ")}` : value;
}
