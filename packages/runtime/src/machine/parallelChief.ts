import { eventTime, type RunEvent, type StepStatus, sumTokens } from "@meshflow/core";
import { assign, emit, enqueueActions, setup } from "xstate";
import { consultDoneEvent, consultStartedEvent } from "../consult/ConsultFrame.js";
import type { GateResult } from "../gate/runVerify.js";
import type { StepResult } from "../internal/StepRunner.js";
import type { ChiefContext, ChiefServices } from "./chiefAnalyst.js";
import { consultation } from "./consultation.js";
import { type ParallelEvent, StoryEvents } from "./StoryEvents.js";
import { StoryOrder } from "./StoryOrder.js";

/** One story in progress in a parallel run: where it stands and what its steps produced. */
export interface StorySlot {
  /** Index of the story in the plan. */
  story: number;
  phase: "working" | "gating" | "concluding";
  /** Index of the current step in the story's `mavenSteps`. */
  step: number;
  steps: StepResult[];
  storyStatus: StepStatus;
  storySummary: string;
  gate: GateResult | undefined;
}

/** The parallel chief analyst's state: the run's tallies and the stories in progress, one slot each. */
export interface ParallelContext
  extends Pick<ChiefContext, "runId" | "counts" | "stop" | "environment" | "error" | "tokens" | "halt"> {
  /** Index of the next story of the plan to start. */
  next: number;
  slots: StorySlot[];
}

/** What the parallel chief analyst needs besides the flat one's services. */
export interface ParallelServices extends ChiefServices {
  /** Stories at most in progress at once (`--parallel n`). */
  parallel: number;
}

const NO_VERIFY: GateResult = { passed: true, results: [], summary: "no verify commands" };

/**
 * The chief analyst of `flow run --parallel n`: up to n stories in progress at once, each in a slot
 * of the context (no actor per story), each story's steps in order. A story starts when a slot is
 * free, it is in the priority band of the stories in progress, and the stories it `dependsOn` that
 * come before it in run order have finished; otherwise stories start in run order, as in the flat
 * machine. Events name their story (`storyId`); only `--parallel` above 1 uses this machine.
 */
export function createParallelChief(services: ParallelServices) {
  const order = new StoryOrder(() => services.plan());
  const events = new StoryEvents(services);
  const slotOf = (context: ParallelContext, story: number) => context.slots.find((s) => s.story === story);
  const withSlot = (context: ParallelContext, slot: StorySlot): StorySlot[] =>
    context.slots.map((s) => (s.story === slot.story ? slot : s));
  const finished = (context: ParallelContext, status: "passed" | "failed" | "aborted"): RunEvent => ({
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
      context: {} as ParallelContext,
      events: {} as ParallelEvent,
      input: {} as { runId: string },
      emitted: {} as RunEvent,
    },
    actors: { consultation },
    guards: {
      allDone: ({ context }) =>
        context.slots.length === 0 && (context.stop || context.next >= services.plan().stories.length),
      canStart: ({ context }) =>
        !context.stop && context.slots.length < services.parallel && order.canStart(context.next, context.slots),
    },
  }).createMachine({
    id: "chief-analyst-parallel",
    context: ({ input }) => ({
      runId: input.runId,
      next: 0,
      slots: [],
      counts: { passed: 0, failed: 0, blocked: 0, skipped: 0 },
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
      CONSULT_STARTED: {
        actions: enqueueActions(({ context, event, enqueue }) => {
          if (event.type !== "CONSULT_STARTED") return;
          enqueue.spawnChild("consultation", { id: event.consult.id, input: event.consult });
          enqueue.emit(consultStartedEvent(context.runId, event.consult));
        }),
      },
      CONSULT_DONE: {
        actions: enqueueActions(({ context, event, enqueue }) => {
          if (event.type !== "CONSULT_DONE") return;
          enqueue.stopChild(event.consult.id);
          enqueue.emit(consultDoneEvent(context.runId, event.consult, event.end));
        }),
      },
    },
    states: {
      preflight: {
        on: {
          PREFLIGHT_DONE: {
            target: "running",
            actions: emit(({ context, event }) => ({
              type: "run.started" as const,
              time: eventTime(),
              runId: context.runId,
              prd: event.prd,
              stories: event.stories,
            })),
          },
          PREFLIGHT_FAILED: {
            target: "refused",
            actions: assign({ error: ({ event }) => ({ code: event.code, message: event.message }) }),
          },
        },
      },
      running: {
        always: [
          { guard: "allDone", target: "finished" },
          {
            // Starts (or skips) the next story; re-evaluated until no more can start.
            guard: "canStart",
            actions: enqueueActions(({ context, enqueue }) => {
              const index = context.next;
              if (services.plan().stories[index]?.skipped) {
                enqueue.emit(events.skipped(context.runId, index));
                enqueue.assign({
                  next: index + 1,
                  counts: { ...context.counts, skipped: context.counts.skipped + 1 },
                });
                return;
              }
              const slot: StorySlot = {
                story: index,
                phase: "working",
                step: 0,
                steps: [],
                storyStatus: "passed",
                storySummary: "",
                gate: undefined,
              };
              enqueue.emit(events.storyStarted(context.runId, index));
              enqueue.emit(events.stepStarted(context.runId, index, 0));
              enqueue.assign({ next: index + 1, slots: [...context.slots, slot] });
            }),
          },
        ],
        on: {
          // Each interrupted step runs again (and says so); its consultations are asked for again.
          RESUME: {
            actions: enqueueActions(({ context, enqueue, self }) => {
              for (const id of Object.keys(self.getSnapshot().children)) enqueue.stopChild(id);
              for (const slot of context.slots)
                if (slot.phase === "working") enqueue.emit(events.stepStarted(context.runId, slot.story, slot.step));
            }),
          },
          STEP_DONE: {
            actions: enqueueActions(({ context, event, enqueue }) => {
              const slot = slotOf(context, event.story);
              if (slot?.phase !== "working") return;
              const result = event.result;
              const steps = [...slot.steps, result];
              const last = slot.step + 1 >= (services.plan().stories[slot.story]?.steps.length ?? 0);
              enqueue.emit(events.stepFinished(context.runId, slot.story, result));
              let next: StorySlot;
              if (result.status !== "passed")
                next = {
                  ...slot,
                  steps,
                  phase: "concluding",
                  storyStatus: result.status,
                  storySummary: `step ${result.step} ${result.status}: ${result.summary}`,
                };
              else if (!last) {
                next = { ...slot, steps, step: slot.step + 1 };
                enqueue.emit(events.stepStarted(context.runId, slot.story, slot.step + 1));
              } else if (!services.plan().stories[slot.story]?.story.verify?.length) {
                enqueue.emit(events.gateFinished(context.runId, slot.story, NO_VERIFY));
                next = {
                  ...slot,
                  steps,
                  phase: "concluding",
                  gate: NO_VERIFY,
                  storyStatus: "passed",
                  storySummary: `all steps passed; ${NO_VERIFY.summary}`,
                };
              } else next = { ...slot, steps, phase: "gating" };
              enqueue.assign({
                slots: withSlot(context, next),
                environment: context.environment || result.environment === true,
                ...(result.halt !== undefined ? { stop: true, halt: context.halt ?? result.halt } : {}),
              });
            }),
          },
          GATE_DONE: {
            actions: enqueueActions(({ context, event, enqueue }) => {
              const slot = slotOf(context, event.story);
              if (slot?.phase !== "gating") return;
              const gate = event.gate;
              enqueue.emit(events.gateFinished(context.runId, slot.story, gate));
              enqueue.assign({
                slots: withSlot(context, {
                  ...slot,
                  phase: "concluding",
                  gate,
                  storyStatus: gate.passed ? "passed" : "failed",
                  storySummary: gate.passed ? `all steps passed; ${gate.summary}` : gate.summary,
                }),
              });
            }),
          },
          CONCLUDED: {
            actions: enqueueActions(({ context, event, enqueue }) => {
              const slot = slotOf(context, event.story);
              if (slot?.phase !== "concluding") return;
              const tokens = sumTokens(slot.steps.map((s) => s.tokens));
              enqueue.emit(events.storyFinished(context.runId, slot.story, event.status, event.summary, tokens));
              enqueue.assign({
                slots: context.slots.filter((s) => s.story !== slot.story),
                tokens: sumTokens([context.tokens, tokens]),
                counts: { ...context.counts, [event.status]: context.counts[event.status] + 1 },
                stop: context.stop || (services.failFast && event.status !== "passed"),
              });
            }),
          },
        },
      },
      finished: {
        type: "final",
        entry: emit(({ context }) =>
          finished(context, context.counts.failed + context.counts.blocked > 0 ? "failed" : "passed"),
        ),
      },
      aborted: { type: "final", entry: emit(({ context }) => finished(context, "aborted")) },
      refused: { type: "final" },
    },
  });
}

/** The parallel machine's type, for code that drives it. */
export type ParallelChief = ReturnType<typeof createParallelChief>;
