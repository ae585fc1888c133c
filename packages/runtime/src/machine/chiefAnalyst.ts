import type { RunEvent, StepStatus } from "@meshflow/core";
import { assign, emit, fromPromise, setup } from "xstate";
import type { GateResult } from "../gate/runVerify.js";
import type { PreparedStep, StepResult } from "../internal/StepRunner.js";
import type { RunPlan } from "../RunPlan.js";
import type { StepMemory } from "../specialists/defineSpecialist.js";

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
  /** Why the run could not start. */
  error: { code: string; message: string } | undefined;
}

/** What the machine's actors do; the runtime supplies them (I/O stays outside the machine). */
export interface ChiefServices {
  /** The plan, once the preflight has produced it. */
  plan(): RunPlan;
  failFast: boolean;
  /** Loads and validates the PRD, plans it, discovers its servers and opens the run; resolves to `run.started`'s facts. */
  preflight(): Promise<{ prd: string; stories: string[] }>;
  prepare(input: { story: number; step: number }): Promise<PreparedStep>;
  think(input: { story: number; step: number; memory: StepMemory[] }): Promise<StepResult>;
  gate(input: { story: number }): Promise<GateResult>;
  /** Writes the story's evidence and, when it passed, marks it in the PRD. */
  conclude(input: {
    story: number;
    status: StepStatus;
    summary: string;
    steps: StepResult[];
    gate?: GateResult;
  }): Promise<{ status: StepStatus; summary: string }>;
}

/** Events the machine accepts. */
export type ChiefEvent = { type: "ABORT" };

const now = () => new Date().toISOString();

function errorFacts(error: unknown): { code: string; message: string } {
  const e = error as { code?: unknown; message?: unknown } | undefined;
  return { code: typeof e?.code === "string" ? e.code : "internal", message: String(e?.message ?? error) };
}

const zero: RunCounts = { passed: 0, failed: 0, blocked: 0, skipped: 0 };

/**
 * The chief analyst: walks the plan story by story (run order) and step by step (`mavenSteps`
 * order), routing each step to its specialist, then runs the completion gate and concludes the
 * story. It is the single source of truth of a run's state; its transitions emit the run events.
 * Its persisted snapshot is what `flow resume` restores.
 */
export function createChiefAnalyst(services: ChiefServices) {
  const planned = (context: ChiefContext) => services.plan().stories[context.story];
  const storyId = (context: ChiefContext) => planned(context)?.story.id ?? "";
  const stepNumber = (context: ChiefContext) => planned(context)?.story.mavenSteps[context.step] ?? 0;
  const stepFinished = (context: ChiefContext, result: StepResult): RunEvent => ({
    type: "step.finished",
    time: now(),
    runId: context.runId,
    storyId: storyId(context),
    step: result.step,
    status: result.status,
    summary: result.summary,
    calls: result.calls.length,
  });

  return setup({
    types: {
      context: {} as ChiefContext,
      events: {} as ChiefEvent,
      input: {} as { runId: string },
      emitted: {} as RunEvent,
    },
    actors: {
      preflight: fromPromise(() => services.preflight()),
      prepare: fromPromise(({ input }: { input: { story: number; step: number } }) => services.prepare(input)),
      think: fromPromise(({ input }: { input: { story: number; step: number; memory: StepMemory[] } }) =>
        services.think(input),
      ),
      gate: fromPromise(({ input }: { input: { story: number } }) => services.gate(input)),
      conclude: fromPromise(
        ({
          input,
        }: {
          input: { story: number; status: StepStatus; summary: string; steps: StepResult[]; gate?: GateResult };
        }) => services.conclude(input),
      ),
    },
    actions: {
      // Any actor that throws ends the run in `refused` with the error: a bug or a broken environment, never a pass.
      recordError: assign({ error: ({ event }) => errorFacts((event as { error?: unknown }).error) }),
    },
    guards: {
      noMoreStories: ({ context }) => context.stop || context.story >= services.plan().stories.length,
      storySkipped: ({ context }) => planned(context)?.skipped === true,
      noMoreSteps: ({ context }) => context.step >= (planned(context)?.story.mavenSteps.length ?? 0),
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
    on: { ABORT: ".aborted" },
    states: {
      preflight: {
        invoke: {
          src: "preflight",
          onDone: {
            target: "nextStory",
            actions: emit(({ context, event }) => ({
              type: "run.started" as const,
              time: now(),
              runId: context.runId,
              prd: event.output.prd,
              stories: event.output.stories,
            })),
          },
          onError: { target: "#chief-analyst.refused", actions: "recordError" },
        },
      },
      nextStory: {
        always: [
          { guard: "noMoreStories", target: "finished" },
          { guard: "storySkipped", target: "skipping" },
          { target: "story" },
        ],
      },
      skipping: {
        entry: [
          emit(({ context }) => ({
            type: "story.finished" as const,
            time: now(),
            runId: context.runId,
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
      story: {
        entry: [
          assign({ step: 0, steps: [], storyStatus: "passed", storySummary: "", gate: undefined }),
          emit(({ context }) => ({
            type: "story.started" as const,
            time: now(),
            runId: context.runId,
            storyId: storyId(context),
          })),
        ],
        initial: "nextStep",
        states: {
          nextStep: {
            always: [{ guard: "noMoreSteps", target: "gating" }, { target: "preparing" }],
          },
          preparing: {
            invoke: {
              src: "prepare",
              input: ({ context }) => ({ story: context.story, step: context.step }),
              onError: { target: "#chief-analyst.refused", actions: "recordError" },
              onDone: {
                target: "thinking",
                actions: emit(({ context, event }) => ({
                  type: "step.started" as const,
                  time: now(),
                  runId: context.runId,
                  storyId: storyId(context),
                  step: stepNumber(context),
                  specialist: event.output.specialist,
                  tools: event.output.tools,
                })),
              },
            },
          },
          thinking: {
            invoke: {
              src: "think",
              input: ({ context }) => ({
                story: context.story,
                step: context.step,
                memory: context.steps.map((s) => ({
                  step: s.step,
                  specialist: s.specialist,
                  outcome: { status: s.status, summary: s.summary, evidence: s.evidence },
                })),
              }),
              onError: { target: "#chief-analyst.refused", actions: "recordError" },
              onDone: [
                {
                  guard: ({ event }) => event.output.status === "passed",
                  target: "nextStep",
                  actions: [
                    assign({ steps: ({ context, event }) => [...context.steps, event.output] }),
                    emit(({ context, event }) => stepFinished(context, event.output)),
                    assign({ step: ({ context }) => context.step + 1 }),
                  ],
                },
                {
                  target: "concluding",
                  actions: [
                    assign({ steps: ({ context, event }) => [...context.steps, event.output] }),
                    emit(({ context, event }) => stepFinished(context, event.output)),
                    assign({
                      storyStatus: ({ event }) => event.output.status,
                      storySummary: ({ event }) =>
                        `step ${event.output.step} ${event.output.status}: ${event.output.summary}`,
                      environment: ({ context, event }) => context.environment || event.output.environment === true,
                    }),
                  ],
                },
              ],
            },
          },
          gating: {
            invoke: {
              src: "gate",
              input: ({ context }) => ({ story: context.story }),
              onError: { target: "#chief-analyst.refused", actions: "recordError" },
              onDone: {
                target: "concluding",
                actions: [
                  assign({
                    gate: ({ event }) => event.output,
                    storyStatus: ({ event }) => (event.output.passed ? "passed" : "failed"),
                    storySummary: ({ event }) =>
                      event.output.passed ? `all steps passed; ${event.output.summary}` : event.output.summary,
                  }),
                  emit(({ context, event }) => ({
                    type: "gate.finished" as const,
                    time: now(),
                    runId: context.runId,
                    storyId: storyId(context),
                    passed: event.output.passed,
                    commands: event.output.results.length,
                    summary: event.output.summary,
                  })),
                ],
              },
            },
          },
          concluding: {
            invoke: {
              src: "conclude",
              input: ({ context }) => ({
                story: context.story,
                status: context.storyStatus,
                summary: context.storySummary,
                steps: context.steps,
                gate: context.gate,
              }),
              onError: { target: "#chief-analyst.refused", actions: "recordError" },
              onDone: {
                target: "concluded",
                actions: assign({
                  storyStatus: ({ event }) => event.output.status,
                  storySummary: ({ event }) => event.output.summary,
                }),
              },
            },
          },
          concluded: { type: "final" },
        },
        onDone: {
          target: "nextStory",
          actions: [
            emit(({ context }) => ({
              type: "story.finished" as const,
              time: now(),
              runId: context.runId,
              storyId: storyId(context),
              status: context.storyStatus,
              summary: context.storySummary,
            })),
            assign({
              counts: ({ context }) => ({
                ...context.counts,
                [context.storyStatus]: context.counts[context.storyStatus] + 1,
              }),
              stop: ({ context }) => context.stop || (services.failFast && context.storyStatus !== "passed"),
              story: ({ context }) => context.story + 1,
              steps: [],
              gate: undefined,
            }),
          ],
        },
      },
      finished: {
        type: "final",
        entry: emit(({ context }) => ({
          type: "run.finished" as const,
          time: now(),
          runId: context.runId,
          status: context.counts.failed + context.counts.blocked > 0 ? ("failed" as const) : ("passed" as const),
          passed: context.counts.passed,
          failed: context.counts.failed,
          blocked: context.counts.blocked,
        })),
      },
      aborted: {
        type: "final",
        entry: emit(({ context }) => ({
          type: "run.finished" as const,
          time: now(),
          runId: context.runId,
          status: "aborted" as const,
          passed: context.counts.passed,
          failed: context.counts.failed,
          blocked: context.counts.blocked,
        })),
      },
      refused: { type: "final" },
    },
  });
}
