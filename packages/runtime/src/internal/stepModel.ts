import {
  addTokens,
  type BudgetSpent,
  eventTime,
  type ModelClaim,
  type ModelPrice,
  type ModelStepIO,
  type ModelTask,
  type ModelTextDelta,
  type ModelWait,
  type RunEvent,
  type RunSpent,
  type StepModel,
  type Story,
  type TokenCount,
  type ToolDescriptor,
} from "@meshflow/core";
import { approveOwnTool } from "../approvals/approveOwnTool.js";
import { consultResult, consultTarget, consultTools } from "../consult/consultTools.js";
import type { Specialist, SpecialistModel, StepMemory } from "../specialists/defineSpecialist.js";
import { runMemory } from "../workflow/RunMemory.js";
import { JournalTurns } from "./JournalTurns.js";
import type { StepContext } from "./StepContext.js";
import type { CallScope } from "./toolCall.js";

/** What a step's model is built from. */
export interface StepModelInit {
  model: StepModel;
  scope: CallScope;
  specialist: Specialist;
  stepPurpose: string;
  memory: readonly StepMemory[];
  /** The step's token count, added to after every `work()`. */
  tokens: TokenCount;
  /** Specialists the model may consult (offered as `consult_<name>` tools). */
  consults?: readonly string[];
  /** A consultation's question: added to what the model is asked. */
  ask?: string;
  /** The step's budget (shared with the step that asked, for a consultation). */
  spent: BudgetSpent;
  /** Told when a model or harness refused the key: the run stops before its next story. */
  onHalt?(message: string): void;
  /** Told the model's text while its turns run (the host's live view); absent, turns are not streamed. */
  onText?(delta: ModelTextDelta): void;
  /** Told when a model request waits before a retry (429, 529), for the host's live view. */
  onWait?(wait: ModelWait): void;
  /** What the run's models have cost so far (`--max-run-cost`). */
  runSpent?: RunSpent;
  /** The PRD's `prices`. */
  prices?: Readonly<Record<string, ModelPrice>>;
  /** The story's own folder when stories are isolated (`ModelStepIO.workDir`). */
  workDir?: string;
}

/** What the model of a step is asked: the specialist, the step's purpose, the story and its earlier steps. */
export function modelTask(input: {
  runId: string;
  story: Story;
  step: number;
  specialist: Pick<Specialist, "name" | "description" | "instructions">;
  stepPurpose: string;
  memory: readonly StepMemory[];
  tools: readonly ToolDescriptor[];
  ask?: string;
}): ModelTask {
  const { story, specialist } = input;
  return {
    runId: input.runId,
    storyId: story.id,
    step: input.step,
    specialist: specialist.name,
    instructions: specialist.instructions ?? specialist.description,
    stepPurpose: input.stepPurpose,
    story: {
      id: story.id,
      title: story.title,
      description: story.description,
      acceptanceCriteria: story.acceptanceCriteria,
      notes: story.notes,
    },
    earlier: input.memory.map((m) => ({
      step: m.step,
      specialist: m.specialist,
      status: m.outcome.status,
      summary: m.outcome.summary,
    })),
    ...recalled(input.memory),
    tools: input.tools,
    ...(input.ask ? { ask: input.ask } : {}),
  };
}

/** The finished stories and learnings of `memory` for the model's task, when it has any. */
function recalled(memory: readonly StepMemory[]): Pick<ModelTask, "finished" | "learnings"> {
  const { stories, learnings } = runMemory(memory);
  return {
    ...(stories.length
      ? {
          finished: stories.map((s) => ({
            prd: s.prd,
            storyId: s.storyId,
            title: s.title,
            status: s.status,
            summary: s.summary,
          })),
        }
      : {}),
    ...(learnings.length
      ? { learnings: learnings.map((l) => ({ prd: l.prd, storyId: l.storyId, text: l.text })) }
      : {}),
  };
}

/** `ctx.model` of a step: the model loop over the step's repertoire, journaled in the run's call journal. */
export function stepModel(init: StepModelInit, ctx: StepContext): SpecialistModel {
  const { model, scope, specialist, tokens } = init;
  const story = ctx.story;
  const consults = init.consults ?? [];
  const tools = consults.length ? [...scope.repertoire, ...consultTools(consults)] : scope.repertoire;
  const keyBase = scope.consult ? scope.consult.keyBase : `step${scope.step}`;
  return {
    name: model.name,
    async work(options = {}): Promise<ModelClaim> {
      const emit = (event: RunEvent) => scope.emit(event);
      const ask = [
        init.ask ? `You are consulted by ${ctx.consultation?.by ?? "another specialist"}: ${init.ask}` : "",
        options.ask ?? "",
      ]
        .filter(Boolean)
        .join("\n\n");
      const { spent } = init;
      const claim = await model.run(
        modelTask({
          runId: scope.runId,
          story,
          step: scope.step,
          specialist,
          stepPurpose: init.stepPurpose,
          memory: init.memory,
          tools,
          ...(ask ? { ask } : {}),
        }),
        {
          call: (name, args, callOptions) => {
            const target = consultTarget(name, consults);
            return target
              ? consultResult(() => ctx.consult(target, typeof args.question === "string" ? args.question : ""))
              : ctx.call(name, args, callOptions);
          },
          turns: new JournalTurns(scope.journal, `${scope.runId}/${scope.storyId}/${keyBase}`, tokens.turns),
          spent,
          onTurn: ({ replayed, ...turn }) =>
            emit({
              type: "model.turn",
              time: eventTime(),
              runId: scope.runId,
              storyId: scope.storyId,
              step: scope.step,
              ...(scope.consult ? { consult: scope.consult.id } : {}),
              ...turn,
              // Numbered within the step, across its work() calls.
              turn: tokens.turns + turn.turn,
              ...(replayed ? { replayed: true } : {}),
            }),
          log: (message, data) => ctx.log.warn(message, data),
          signal: scope.signal,
          ...(init.workDir !== undefined ? { workDir: init.workDir } : {}),
          ...textListener(init, scope, tokens.turns),
          ...waitListener(init, scope, tokens.turns),
          ...(init.runSpent ? { runSpent: init.runSpent } : {}),
          ...(init.prices ? { prices: init.prices } : {}),
          ...(scope.approvals
            ? {
                approveOwnTool: (program: string, tool: string, input: Record<string, unknown>) =>
                  approveOwnTool(scope, program, tool, input),
              }
            : {}),
        },
      );
      if (claim.code === "auth_failed") init.onHalt?.(claim.summary);
      const u = claim.usage;
      addTokens(tokens, {
        input: u.inputTokens,
        output: u.outputTokens,
        turns: u.turns,
        ...(u.cacheReadTokens ? { cacheRead: u.cacheReadTokens } : {}),
        ...(u.cacheWriteTokens ? { cacheWrite: u.cacheWriteTokens } : {}),
        ...(u.costUsd !== undefined ? { costUsd: u.costUsd } : {}),
        ...(u.unpricedTurns ? { unpricedTurns: u.unpricedTurns } : {}),
      });
      return claim;
    },
  };
}

/** Where a step's model speaks: its run, story, step and consultation. */
function whereOf(scope: CallScope) {
  return {
    runId: scope.runId,
    storyId: scope.storyId,
    step: scope.step,
    ...(scope.consult ? { consult: scope.consult.id } : {}),
  };
}

/** The loop's `onWait`, when the host listens: each wait keyed as its text is. */
function waitListener(init: StepModelInit, scope: CallScope, turnsBefore: number): Pick<ModelStepIO, "onWait"> {
  const listener = init.onWait;
  if (!listener) return {};
  const where = whereOf(scope);
  return {
    onWait(turn, wait) {
      try {
        listener({ ...where, turn: turnsBefore + turn, ...wait });
      } catch {
        // A view that fails to draw a wait never fails the model's turn.
      }
    },
  };
}

/** The loop's `onText`, when the host listens: each piece keyed by story, step, consultation and turn. */
function textListener(init: StepModelInit, scope: CallScope, turnsBefore: number): Pick<ModelStepIO, "onText"> {
  const listener = init.onText;
  if (!listener) return {};
  const where = whereOf(scope);
  return {
    onText(turn, delta, text) {
      try {
        listener({ ...where, turn: turnsBefore + turn, delta, text });
      } catch {
        // A view that fails to draw a piece of text never fails the model's turn.
      }
    },
  };
}
