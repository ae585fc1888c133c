import { eventTime, type RunEvent, type StepStatus, sumTokens, type TokenCount } from "@meshflow/core";
import { assign, emit, enqueueActions, setup } from "xstate";
import { consultDoneEvent, consultStartedEvent } from "../consult/ConsultFrame.js";
import type { GateResult } from "../gate/runVerify.js";
import type { StepResult } from "../internal/StepRunner.js";
import type { RunPlan } from "../RunPlan.js";
import { type ConsultEvent, consultation } from "./consultation.js";

/** Story tallies of a run. */
export interface RunCounts {
  passed: number;
  failed: number;
  blocked: number;
  skipped: number;
}

/** The machine's state: where the run is and what the current story has produced so far. */
export interface ChiefContext {
  runId: string;
  /** Index of the current story in the plan. */
  story: number;
  /** Index of the current step in the story's `mavenSteps`. */
  step: number;
  /** Finished steps of the current story. */
  steps: StepResult[];
  storyStatus: StepStatus;
  storySummary: string;
  gate: GateResult | undefined;
  counts: RunCounts;
  /** `--fail-fast` tripped: no further story starts. */
  stop: boolean;
  /** An unreachable server blocked a step (the CLI exits 3). */
  environment: boolean;
  /** Why the run could not start or stopped. */
  error: { code: string; message: string } | undefined;
  /** Why no further story starts (a model or harness refused the key); absent while the run may go on. */
  halt?: string;
  /** Tokens the run's models used in finished stories (absent in snapshots of older runs). */
  tokens?: TokenCount;
}

/** What the machine reads from the runtime (synchronous lookups; all I/O happens outside the machine). */
export interface ChiefServices {
  /** The plan, once the preflight has produced it. */
  plan(): RunPlan;
  failFast: boolean;
  /** Routes a step and sizes its repertoire (from the tools the preflight discovered). */
  describeStep(story: number, step: number): { specialist: string; tools: number };
}

/**
 * What the runtime reports to the machine. The machine decides what comes next; the runtime does
 * the work each state asks for (think, gate, conclude) and sends back its result.
 */
export type ChiefEvent =
  | { type: "PREFLIGHT_DONE"; prd: string; stories: string[] }
  | { type: "PREFLIGHT_FAILED"; code: string; message: string }
  | { type: "STEP_DONE"; result: StepResult }
  | { type: "GATE_DONE"; gate: GateResult }
  | { type: "CONCLUDED"; status: StepStatus; summary: string }
  | { type: "FAILED"; code: string; message: string }
  /** Sent once after a restored run starts: an interrupted step starts again (and says so). */
  | { type: "RESUME" }
  | { type: "ABORT" }
  | ConsultEvent;

/** The gate's verdict for a story without verify commands. */
const NO_VERIFY: GateResult = { passed: true, results: [], summary: "no verify commands" };

/** The `failed` field of a failed gate's event: the command that stopped it and its output's last lines. */
function failedCommand(gate: GateResult): { failed?: { command: string; tail: string } } {
  const last = gate.results.at(-1);
  return !gate.passed && last ? { failed: { command: last.name, tail: last.tail } } : {};
}
const zero: RunCounts = { passed: 0, failed: 0, blocked: 0, skipped: 0 };

/**
 * The chief analyst: walks the plan story by story (run order) and step by step (`mavenSteps`
 * order), routing each step to its specialist, then to the completion gate and the story's
 * conclusion. It is the single source of truth of a run's state and its transitions emit the run's
 * lifecycle events; its persisted snapshot is what `flow resume` restores. The state names say what
 * the runtime must do next: `working` (run the current step's think()), `gating` (run the story's
 * verify commands), `concluding` (record evidence, mark a passed story in the PRD). The states are
 * flat on purpose: a transition's cost grows with the depth of the state tree.
 */
export function createChiefAnalyst(services: ChiefServices) {
  const planned = (context: ChiefContext) => services.plan().stories[context.story];
  const storyId = (context: ChiefContext) => planned(context)?.id ?? "";
  const base = (context: ChiefContext) => ({ time: eventTime(), runId: context.runId });
  const isLastStep = (context: ChiefContext) => context.step + 1 >= (planned(context)?.steps.length ?? 0);
  const runFinished = (context: ChiefContext, status: "passed" | "failed" | "aborted"): RunEvent => ({
    type: "run.finished",
    ...base(context),
    status,
    passed: context.counts.passed,
    failed: context.counts.failed,
    blocked: context.counts.blocked,
    ...(context.tokens?.turns ? { tokens: context.tokens } : {}),
  });
  const storyTokens = (context: ChiefContext) => sumTokens(context.steps.map((s) => s.tokens));

  return setup({
    types: {
      context: {} as ChiefContext,
      events: {} as ChiefEvent,
      input: {} as { runId: string },
      emitted: {} as RunEvent,
    },
    actors: { consultation },
    guards: {
      noMoreStories: ({ context }) => context.stop || context.story >= services.plan().stories.length,
      storySkipped: ({ context }) => planned(context)?.skipped === true,
    },
  }).createMachine({
    id: "chief-analyst",
    context: ({ input }) => ({
      runId: input.runId,
      story: 0,
      step: 0,
      steps: [],
      storyStatus: "passed",
      storySummary: "",
      gate: undefined,
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
      // A consultation is a child actor while it runs: the persisted snapshot holds it (see consultation.ts).
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
            target: "nextStory",
            actions: emit(({ context, event }) => ({
              type: "run.started" as const,
              ...base(context),
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
      nextStory: {
        always: [
          { guard: "noMoreStories", target: "finished" },
          { guard: "storySkipped", target: "skipping" },
          {
            target: "working",
            actions: [
              assign({ step: 0, steps: [], storyStatus: "passed", storySummary: "", gate: undefined }),
              emit(({ context }) => ({ type: "story.started" as const, ...base(context), storyId: storyId(context) })),
            ],
          },
        ],
      },
      skipping: {
        entry: [
          emit(({ context }) => ({
            type: "story.finished" as const,
            ...base(context),
            storyId: storyId(context),
            status: "skipped" as const,
            summary: "passes is true",
          })),
          assign({
            counts: ({ context }) => ({ ...context.counts, skipped: context.counts.skipped + 1 }),
            story: ({ context }) => context.story + 1,
          }),
        ],
        always: { target: "nextStory" },
      },
      working: {
        entry: emit(({ context }) => {
          const { specialist, tools } = services.describeStep(context.story, context.step);
          return {
            type: "step.started" as const,
            ...base(context),
            storyId: storyId(context),
            step: planned(context)?.steps[context.step] ?? 0,
            specialist,
            tools,
          };
        }),
        on: {
          // The interrupted step runs again and asks for its consultations again (their calls replay).
          RESUME: {
            target: "working",
            reenter: true,
            actions: enqueueActions(({ enqueue, self }) => {
              for (const id of Object.keys(self.getSnapshot().children)) enqueue.stopChild(id);
            }),
          },
          STEP_DONE: [
            {
              // A story without verify commands passes its gate at once: no round trip to the runtime.
              guard: ({ context, event }) =>
                event.result.status === "passed" && isLastStep(context) && !planned(context)?.story.verify?.length,
              target: "concluding",
              actions: [
                emit(({ context, event }) => stepFinished(context, event.result)),
                emit(({ context }) => ({
                  type: "gate.finished" as const,
                  ...base(context),
                  storyId: storyId(context),
                  passed: true,
                  commands: 0,
                  summary: NO_VERIFY.summary,
                })),
                assign(({ context, event }) => ({
                  steps: [...context.steps, event.result],
                  gate: NO_VERIFY,
                  storyStatus: "passed" as const,
                  storySummary: `all steps passed; ${NO_VERIFY.summary}`,
                })),
              ],
            },
            {
              guard: ({ context, event }) => event.result.status === "passed" && isLastStep(context),
              target: "gating",
              actions: [
                emit(({ context, event }) => stepFinished(context, event.result)),
                assign(({ context, event }) => ({ steps: [...context.steps, event.result] })),
              ],
            },
            {
              guard: ({ event }) => event.result.status === "passed",
              target: "working",
              reenter: true,
              actions: [
                emit(({ context, event }) => stepFinished(context, event.result)),
                assign(({ context, event }) => ({ steps: [...context.steps, event.result], step: context.step + 1 })),
              ],
            },
            {
              target: "concluding",
              actions: [
                assign({ steps: ({ context, event }) => [...context.steps, event.result] }),
                emit(({ context, event }) => stepFinished(context, event.result)),
                assign({
                  storyStatus: ({ event }) => event.result.status,
                  storySummary: ({ event }) =>
                    `step ${event.result.step} ${event.result.status}: ${event.result.summary}`,
                  environment: ({ context, event }) => context.environment || event.result.environment === true,
                  halt: ({ context, event }) => context.halt ?? event.result.halt,
                  stop: ({ context, event }) => context.stop || event.result.halt !== undefined,
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
              assign({
                gate: ({ event }) => event.gate,
                storyStatus: ({ event }) => (event.gate.passed ? "passed" : "failed"),
                storySummary: ({ event }) =>
                  event.gate.passed ? `all steps passed; ${event.gate.summary}` : event.gate.summary,
              }),
              emit(({ context, event }) => ({
                type: "gate.finished" as const,
                ...base(context),
                storyId: storyId(context),
                passed: event.gate.passed,
                commands: event.gate.results.length,
                summary: event.gate.summary,
                ...failedCommand(event.gate),
              })),
            ],
          },
        },
      },
      concluding: {
        on: {
          CONCLUDED: {
            target: "nextStory",
            actions: [
              emit(({ context, event }) => ({
                type: "story.finished" as const,
                ...base(context),
                storyId: storyId(context),
                status: event.status,
                summary: event.summary,
                ...(storyTokens(context) ? { tokens: storyTokens(context) } : {}),
              })),
              assign(({ context, event }) => ({
                tokens: sumTokens([context.tokens, storyTokens(context)]),
                storyStatus: event.status,
                storySummary: event.summary,
                counts: { ...context.counts, [event.status]: context.counts[event.status] + 1 },
                stop: context.stop || (services.failFast && event.status !== "passed"),
                story: context.story + 1,
                steps: [],
                gate: undefined,
              })),
            ],
          },
        },
      },
      finished: {
        type: "final",
        entry: emit(({ context }) =>
          runFinished(context, context.counts.failed + context.counts.blocked > 0 ? "failed" : "passed"),
        ),
      },
      aborted: { type: "final", entry: emit(({ context }) => runFinished(context, "aborted")) },
      refused: { type: "final" },
    },
  });

  function stepFinished(context: ChiefContext, result: StepResult): RunEvent {
    return {
      type: "step.finished",
      ...base(context),
      storyId: storyId(context),
      step: result.step,
      status: result.status,
      summary: result.summary,
      calls: result.calls.length,
      ...(result.tokens ? { tokens: result.tokens } : {}),
    };
  }
}

/** The machine's type, for code that drives it. */
export type ChiefAnalyst = ReturnType<typeof createChiefAnalyst>;
