import { eventTime, type RunEvent, type StepStatus, type TokenCount } from "@meshflow/core";
import { type ActorRefFrom, assign, enqueueActions, setup } from "xstate";
import { consultDoneEvent, consultStartedEvent } from "../consult/ConsultFrame.js";
import type { GateResult } from "../gate/runVerify.js";
import type { StepResult } from "../internal/StepRunner.js";
import type { RunPlan } from "../RunPlan.js";
import { type ConsultEvent, consultation } from "./consultation.js";

/**
 * What a story actor has produced so far for its story; its phase (working, gating, concluding, or
 * `free` once its story has concluded) is its state value.
 */
export interface StoryContext {
  runId: string;
  /** Index of the story in the plan. */
  story: number;
  /** Index of the current step in the story's `mavenSteps`. */
  step: number;
  /** Finished steps. */
  steps: StepResult[];
  storyStatus: StepStatus;
  storySummary: string;
  gate: GateResult | undefined;
}

/** The phases of a story, the story actor's state values: each names the work the runtime does next. */
export type StoryPhase = "working" | "gating" | "concluding";

/** What a story actor is told: the results of its story's work (from the runtime), and what comes next (from the chief). */
export type StoryEvent =
  /** From the chief analyst: take this story (the actor is free, or its story has concluded). */
  | { type: "START"; story: number }
  /** From the chief analyst: the story has concluded and no other starts now. */
  | { type: "FREE" }
  | { type: "STEP_DONE"; result: StepResult }
  | { type: "GATE_DONE"; gate: GateResult }
  /** Sent once after a restored run starts: an interrupted step starts again (and says so). */
  | { type: "RESUME" }
  | ConsultEvent;

/**
 * What a story actor tells the chief analyst: a step's result concerns the whole run, because an
 * unreachable server blocked it (the CLI exits 3) or it halted the run (`halt`: no further story
 * starts, at once rather than when its story concludes).
 */
export interface StepAlert {
  type: "STEP_ALERT";
  environment: boolean;
  halt: string | undefined;
}

/** What a story actor reads from the runtime: the plan, step routing, and where its events go. */
export interface StoryServices {
  plan(): RunPlan;
  /** Routes a step and sizes its repertoire (from the tools the preflight discovered). */
  describeStep(story: number, step: number): { specialist: string; tools: number };
  /** Publishes a run event; called in transition order, so the run's events keep that order. */
  emit(event: RunEvent): void;
}

/** The gate's verdict for a story without verify commands. */
const NO_VERIFY: GateResult = { passed: true, results: [], summary: "no verify commands" };

/**
 * The lifecycle events of one story, built from the plan (one place for their shapes).
 * @example storyEvents(services).stepStarted("run-1", 0, 0)
 */
export function storyEvents(services: Pick<StoryServices, "plan" | "describeStep">) {
  const id = (story: number) => services.plan().stories[story]?.id ?? "";
  const base = (runId: string, story: number) => ({ time: eventTime(), runId, storyId: id(story) });
  return {
    storyStarted: (runId: string, story: number): RunEvent => ({ type: "story.started", ...base(runId, story) }),
    skipped: (runId: string, story: number): RunEvent => ({
      type: "story.finished",
      ...base(runId, story),
      status: "skipped",
      summary: "passes is true",
    }),
    stepStarted: (runId: string, story: number, step: number): RunEvent => {
      const { specialist, tools } = services.describeStep(story, step);
      const number = services.plan().stories[story]?.steps[step] ?? 0;
      return { type: "step.started", ...base(runId, story), step: number, specialist, tools };
    },
    stepFinished: (runId: string, story: number, result: StepResult): RunEvent => ({
      type: "step.finished",
      ...base(runId, story),
      step: result.step,
      status: result.status,
      summary: result.summary,
      calls: result.calls.length,
      ...(result.tokens ? { tokens: result.tokens } : {}),
    }),
    gateFinished: (runId: string, story: number, gate: GateResult): RunEvent => {
      const last = gate.results.at(-1);
      return {
        type: "gate.finished",
        ...base(runId, story),
        passed: gate.passed,
        commands: gate.results.length,
        summary: gate.summary,
        ...(!gate.passed && last ? { failed: { command: last.name, tail: last.tail } } : {}),
      };
    },
    storyFinished: (
      runId: string,
      story: number,
      status: StepStatus,
      summary: string,
      tokens: TokenCount | undefined,
    ): RunEvent => ({
      type: "story.finished",
      ...base(runId, story),
      status,
      summary,
      ...(tokens ? { tokens } : {}),
    }),
  };
}

/**
 * A story actor, a child actor of the chief analyst: works one story at a time, its steps in
 * `mavenSteps` order (`working`), the completion gate (`gating`), then waits in `concluding` while
 * the runtime records the story's conclusion and reports it to the chief analyst, which counts it and
 * hands this actor the next story (`START`) or frees it (`FREE`). The chief spawns one for each story
 * in progress, up to `--parallel n`, and hands a free or concluded one the next story rather than
 * spawning another: spawning an xstate actor costs several times a transition, and a run of small
 * stories would spend its time doing it.
 *
 * The runtime sends it the results of its story's work directly (see `storyActorOf`): a step costs
 * one transition of this actor, none of the chief's. Consultations asked for during a step are its
 * own children, so a persisted snapshot holds run → story → consultation. Its events are published
 * by plain actions, in transition order (the chief analyst publishes `story.started`, the first
 * `step.started` and `story.finished` itself, so events of stories started together keep the plan's
 * order). Built-in actions rather than `enqueueActions` where a run takes them for every story or
 * step: resolving an `enqueue` costs more than the action.
 */
export function createStoryActor(services: StoryServices) {
  const events = storyEvents(services);
  const planned = (context: StoryContext) => services.plan().stories[context.story];
  const isLastStep = (context: StoryContext) => context.step + 1 >= (planned(context)?.steps.length ?? 0);
  const result = (event: StoryEvent) => (event.type === "STEP_DONE" ? event.result : undefined);
  const stepFinished = ({ context, event }: { context: StoryContext; event: StoryEvent }) => {
    const done = result(event);
    if (done) services.emit(events.stepFinished(context.runId, context.story, done));
  };

  return setup({
    types: { context: {} as StoryContext, events: {} as StoryEvent, input: {} as StoryContext },
    actors: { consultation },
    actions: {
      start: assign(({ event }) => ({
        story: event.type === "START" ? event.story : -1,
        step: 0,
        steps: [],
        storyStatus: "passed" as const,
        storySummary: "",
        gate: undefined,
      })),
    },
  }).createMachine({
    id: "story",
    context: ({ input }) => input,
    initial: "working",
    on: {
      CONSULT_STARTED: {
        actions: enqueueActions(({ context, event, enqueue }) => {
          if (event.type !== "CONSULT_STARTED") return;
          enqueue.spawnChild("consultation", { id: event.consult.id, input: event.consult });
          services.emit(consultStartedEvent(context.runId, event.consult));
        }),
      },
      CONSULT_DONE: {
        actions: enqueueActions(({ context, event, enqueue }) => {
          if (event.type !== "CONSULT_DONE") return;
          enqueue.stopChild(event.consult.id);
          services.emit(consultDoneEvent(context.runId, event.consult, event.end));
        }),
      },
    },
    states: {
      free: { on: { START: { target: "working", actions: "start" } } },
      working: {
        on: {
          // The interrupted step runs again and asks for its consultations again (their calls replay).
          RESUME: {
            actions: enqueueActions(({ context, enqueue, self }) => {
              for (const id of Object.keys(self.getSnapshot().children)) enqueue.stopChild(id);
              services.emit(events.stepStarted(context.runId, context.story, context.step));
            }),
          },
          STEP_DONE: [
            {
              // A story without verify commands passes its gate at once: no round trip to the runtime.
              guard: ({ context, event }) =>
                result(event)?.status === "passed" && isLastStep(context) && !planned(context)?.story.verify?.length,
              target: "concluding",
              actions: [
                stepFinished,
                ({ context }) => services.emit(events.gateFinished(context.runId, context.story, NO_VERIFY)),
                assign(({ context, event }) => ({
                  steps: addStep(context, event),
                  gate: NO_VERIFY,
                  storyStatus: "passed" as const,
                  storySummary: `all steps passed; ${NO_VERIFY.summary}`,
                })),
              ],
            },
            {
              guard: ({ context, event }) => result(event)?.status === "passed" && isLastStep(context),
              target: "gating",
              actions: [stepFinished, assign(({ context, event }) => ({ steps: addStep(context, event) }))],
            },
            {
              guard: ({ event }) => result(event)?.status === "passed",
              actions: [
                stepFinished,
                assign(({ context, event }) => ({ steps: addStep(context, event), step: context.step + 1 })),
                ({ context }) => services.emit(events.stepStarted(context.runId, context.story, context.step)),
              ],
            },
            {
              // A step that did not pass ends its story; an unreachable server or a halt concerns the run.
              target: "concluding",
              actions: [
                stepFinished,
                assign(({ context, event }) => {
                  const failed = result(event);
                  return {
                    steps: addStep(context, event),
                    storyStatus: failed?.status ?? "failed",
                    storySummary: failed ? `step ${failed.step} ${failed.status}: ${failed.summary}` : "",
                  };
                }),
                enqueueActions(({ event, enqueue }) => {
                  const failed = result(event);
                  if (failed?.environment === true || failed?.halt !== undefined)
                    enqueue.sendParent({
                      type: "STEP_ALERT",
                      environment: failed.environment === true,
                      halt: failed.halt,
                    } satisfies StepAlert);
                }),
              ],
            },
          ],
        },
      },
      gating: {
        on: {
          GATE_DONE: {
            target: "concluding",
            actions: [
              assign(({ event }) => ({
                gate: event.gate,
                storyStatus: event.gate.passed ? ("passed" as const) : ("failed" as const),
                storySummary: event.gate.passed ? `all steps passed; ${event.gate.summary}` : event.gate.summary,
              })),
              ({ context }) =>
                context.gate && services.emit(events.gateFinished(context.runId, context.story, context.gate)),
            ],
          },
        },
      },
      // The runtime records the story's conclusion and tells the chief analyst (`CONCLUDED`), which
      // hands this actor its next story or frees it.
      concluding: {
        on: {
          START: { target: "working", actions: "start" },
          // A free actor keeps nothing of its story (its snapshot is persisted while others work).
          FREE: { target: "free", actions: assign({ steps: [], gate: undefined }) },
        },
      },
    },
  });
}

function addStep(context: StoryContext, event: StoryEvent): StepResult[] {
  return event.type === "STEP_DONE" ? [...context.steps, event.result] : context.steps;
}

/** The story actor's machine type. */
type StoryActorLogic = ReturnType<typeof createStoryActor>;

/** A story actor. */
export type StoryActor = ActorRefFrom<StoryActorLogic>;
