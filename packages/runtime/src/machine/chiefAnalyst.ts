import { eventTime, type RunEvent, type StepStatus, sumTokens, type TokenCount } from "@meshflow/core";
import { assign, enqueueActions, sendTo, setup, spawnChild } from "xstate";
import { type ParallelOrder, StoryOrder } from "./StoryOrder.js";
import {
  createStoryActor,
  type StepAlert,
  type StoryActor,
  type StoryContext,
  type StoryEvent,
  type StoryServices,
  storyEvents,
} from "./storyActor.js";

/** Story tallies of a run. */
export interface RunCounts {
  passed: number;
  failed: number;
  blocked: number;
  skipped: number;
}

/** The chief analyst's state: the run's tallies and which story each of its story actors works. */
export interface ChiefContext {
  runId: string;
  /** Index of the next story of the plan to start. */
  next: number;
  /**
   * The story (plan index) each story actor works, by actor: entry `k` is the actor `story-<k+1>`
   * (see {@link storyActorId}); null while it is free.
   */
  actors: Array<number | null>;
  counts: RunCounts;
  /** `--fail-fast` tripped or a step halted the run: no further story starts. */
  stop: boolean;
  /** An unreachable server blocked a step (the CLI exits 3). */
  environment: boolean;
  /** Why the run could not start or stopped. */
  error: { code: string; message: string } | undefined;
  /** Why no further story starts (a model or harness refused the key); absent while the run may go on. */
  halt?: string;
  /** Tokens the run's models used in finished stories. */
  tokens?: TokenCount;
}

/** What the machine reads from the runtime (synchronous lookups and the event sink; all other I/O is outside). */
export interface ChiefServices extends StoryServices {
  failFast: boolean;
  /** Stories at most in progress at once (`--parallel n`); default 1, one after another. */
  parallel?: number;
  /** Which stories may run together (`--parallel-order`); default `band`. */
  parallelOrder?: ParallelOrder;
}

/**
 * What the runtime reports to the machine (the preflight, a story's conclusion, a failure, an abort, a
 * resume) and what its story actors report. The results of a story's think() and gate go to the
 * story's actor (`StoryEvent`, see `storyActorOf`), which decides what comes next for the story.
 */
export type ChiefEvent =
  | { type: "PREFLIGHT_DONE"; prd: string; stories: string[] }
  | { type: "PREFLIGHT_FAILED"; code: string; message: string }
  /**
   * A story in `concluding` has concluded: its evidence is recorded and, when it passed, its PRD mark
   * is due. `tokens`: what its steps' models used.
   */
  | { type: "CONCLUDED"; story: number; status: StepStatus; summary: string; tokens: TokenCount | undefined }
  | { type: "FAILED"; code: string; message: string }
  | { type: "ABORT" }
  /** Sent once after a restored run starts: each story in progress starts its interrupted step again. */
  | { type: "RESUME" }
  | StepAlert;

/** A story's conclusion, as the runtime reports it to the chief analyst. */
export type StoryConcluded = Extract<ChiefEvent, { type: "CONCLUDED" }>;

const zero: RunCounts = { passed: 0, failed: 0, blocked: 0, skipped: 0 };

/**
 * The chief analyst: walks the plan in run order and starts each story on a story actor (see
 * {@link createStoryActor}), up to `parallel` at a time: a free one when there is one, else a new
 * child actor. A story starts when there is room, the stories in progress are of its priority band,
 * and the stories it `dependsOn` that come before it have finished; with one at a time that is simply
 * run order. Stories with `passes: true` are counted skipped as they are reached. It is the single
 * source of truth of a run's state; its persisted snapshot (with its story actors') is what
 * `flow resume` restores. Its states: `preflight`, `running`, then `finished`, `aborted` or `refused`.
 */
export function createChiefAnalyst(services: ChiefServices) {
  const parallel = services.parallel ?? 1;
  const order = new StoryOrder(() => services.plan(), services.parallelOrder);
  const events = storyEvents(services);
  const busy = (context: ChiefContext) => context.actors.reduce<number>((n, story) => (story === null ? n : n + 1), 0);
  /** Whether the next story may start now (there is room, its band and dependencies allow it). */
  const hasRoom = (context: ChiefContext) =>
    !context.stop && busy(context) < parallel && order.canStart(context.next, context.actors);
  /** The tallies once a story has concluded. */
  const counted = (context: ChiefContext, event: StoryConcluded) => ({
    tokens: sumTokens([context.tokens, event.tokens]),
    counts: { ...context.counts, [event.status]: context.counts[event.status] + 1 },
    stop: context.stop || (services.failFast && event.status !== "passed"),
  });
  const finished = ({ context, event }: { context: ChiefContext; event: ChiefEvent }) => {
    if (event.type === "CONCLUDED")
      services.emit(events.storyFinished(context.runId, event.story, event.status, event.summary, event.tokens));
  };
  const announce = ({ context }: { context: ChiefContext }) => {
    services.emit(events.storyStarted(context.runId, context.next));
    services.emit(events.stepStarted(context.runId, context.next, 0));
  };
  const runFinished = (context: ChiefContext, status: "passed" | "failed" | "aborted"): RunEvent => ({
    type: "run.finished",
    time: eventTime(),
    runId: context.runId,
    status,
    passed: context.counts.passed,
    failed: context.counts.failed,
    blocked: context.counts.blocked,
    ...(context.tokens?.turns ? { tokens: context.tokens } : {}),
  });
  return setup({
    types: {
      context: {} as ChiefContext,
      events: {} as ChiefEvent,
      input: {} as { runId: string },
    },
    actors: { story: createStoryActor(services) },
    guards: {
      allDone: ({ context }) => busy(context) === 0 && (context.stop || context.next >= services.plan().stories.length),
      canSkip: ({ context }) => services.plan().stories[context.next]?.skipped === true && hasRoom(context),
      canStartOnFree: ({ context }) => context.actors.includes(null) && hasRoom(context),
      canStartOnNew: ({ context }) => hasRoom(context),
      nextOnItsActor: ({ context, event }) => {
        if (event.type !== "CONCLUDED" || !context.actors.includes(event.story)) return false;
        const next = services.plan().stories[context.next];
        return (
          next !== undefined &&
          !next.skipped &&
          !counted(context, event).stop &&
          order.canStart(context.next, context.actors, event.story)
        );
      },
    },
  }).createMachine({
    id: "chief-analyst",
    context: ({ input }) => ({
      runId: input.runId,
      next: 0,
      actors: [],
      counts: { ...zero },
      stop: false,
      environment: false,
      error: undefined,
    }),
    initial: "preflight",
    on: {
      ABORT: ".aborted",
      FAILED: {
        target: ".refused",
        actions: assign({ error: ({ event }) => ({ code: event.code, message: event.message }) }),
      },
      // A story actor whose action threw ends the run with that error, as the machine's own would.
      "xstate.error.actor.*": {
        actions: ({ event }: { event: unknown }) => {
          throw (event as { error?: unknown }).error;
        },
      },
    },
    states: {
      preflight: {
        on: {
          PREFLIGHT_DONE: {
            target: "deciding",
            actions: ({ context, event }) =>
              services.emit({
                type: "run.started",
                time: eventTime(),
                runId: context.runId,
                prd: event.prd,
                stories: event.stories,
              }),
          },
          PREFLIGHT_FAILED: {
            target: "refused",
            actions: assign({ error: ({ event }) => ({ code: event.code, message: event.message }) }),
          },
        },
      },
      // Starts (or skips) the stories that may start now, one after another until none may: one
      // story by default, up to `parallel`; then `running`. Only passed through, never persisted.
      deciding: {
        always: [
          { guard: "allDone", target: "finished" },
          {
            guard: "canSkip",
            actions: [
              ({ context }) => services.emit(events.skipped(context.runId, context.next)),
              assign(({ context }) => ({
                next: context.next + 1,
                counts: { ...context.counts, skipped: context.counts.skipped + 1 },
              })),
            ],
          },
          {
            guard: "canStartOnFree",
            actions: [
              announce,
              sendTo(
                ({ context }) => storyActorId(context.actors.indexOf(null)),
                ({ context }): StoryEvent => ({ type: "START", story: context.next }),
              ),
              assign(({ context }) => {
                const actors = [...context.actors];
                actors[actors.indexOf(null)] = context.next;
                return { next: context.next + 1, actors };
              }),
            ],
          },
          {
            guard: "canStartOnNew",
            actions: [
              announce,
              spawnChild("story", {
                id: ({ context }) => storyActorId(context.actors.length),
                input: ({ context }): StoryContext => ({
                  runId: context.runId,
                  story: context.next,
                  step: 0,
                  steps: [],
                  storyStatus: "passed",
                  storySummary: "",
                  gate: undefined,
                }),
              }),
              assign(({ context }) => ({ next: context.next + 1, actors: [...context.actors, context.next] })),
            ],
          },
          { target: "running" },
        ],
      },
      running: {
        on: {
          // A halt stops further stories at once, not when its story concludes.
          STEP_ALERT: {
            actions: assign(({ context, event }) => ({
              environment: context.environment || event.environment,
              ...(event.halt !== undefined ? { stop: true, halt: context.halt ?? event.halt } : {}),
            })),
          },
          RESUME: {
            actions: enqueueActions(({ context, enqueue }) => {
              context.actors.forEach((story, k) => {
                if (story !== null) enqueue.sendTo(storyActorId(k), { type: "RESUME" });
              });
            }),
          },
          // Built-in actions, not `enqueueActions`, on this path a run takes for every story: resolving
          // an `enqueue` costs more than the actions.
          CONCLUDED: [
            {
              // The usual case: the next story starts on the actor whose story concluded. One story
              // at a time, that is all there is to decide; with more, others may start too.
              guard: "nextOnItsActor",
              ...(parallel > 1 ? { target: "deciding" } : {}),
              actions: [
                finished,
                announce,
                sendTo(
                  ({ context, event }) => storyActorId(context.actors.indexOf(event.story)),
                  ({ context }): StoryEvent => ({ type: "START", story: context.next }),
                ),
                assign(({ context, event }) => ({
                  ...counted(context, event),
                  actors: context.actors.map((story) => (story === event.story ? context.next : story)),
                  next: context.next + 1,
                })),
              ],
            },
            {
              guard: ({ context, event }) => context.actors.includes(event.story),
              target: "deciding",
              actions: [
                finished,
                sendTo(({ context, event }) => storyActorId(context.actors.indexOf(event.story)), {
                  type: "FREE",
                } satisfies StoryEvent),
                assign(({ context, event }) => ({
                  ...counted(context, event),
                  actors: context.actors.map((story) => (story === event.story ? null : story)),
                })),
              ],
            },
          ],
        },
      },
      finished: {
        type: "final",
        entry: ({ context }) =>
          services.emit(runFinished(context, context.counts.failed + context.counts.blocked > 0 ? "failed" : "passed")),
      },
      aborted: { type: "final", entry: ({ context }) => services.emit(runFinished(context, "aborted")) },
      refused: { type: "final" },
    },
  });
}

/** The machine's type, for code that drives it. */
export type ChiefAnalyst = ReturnType<typeof createChiefAnalyst>;

/** The id of the chief's story actor `k` (from 0): `story-1`, `story-2`, … */
export function storyActorId(k: number): string {
  return `story-${k + 1}`;
}

/**
 * The actor working a story (plan index), from the chief analyst's snapshot; undefined when the story
 * is not in progress. The runtime sends the results of the story's work to it.
 */
export function storyActorOf(
  chief: { context: Pick<ChiefContext, "actors">; children: object },
  story: number,
): StoryActor | undefined {
  const k = chief.context.actors.indexOf(story);
  return k < 0 ? undefined : (chief.children as Record<string, StoryActor | undefined>)[storyActorId(k)];
}
