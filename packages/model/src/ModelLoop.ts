import {
  isMeshflowError,
  MODEL_PROVIDER_PARTS,
  type ModelClaim,
  type ModelRequestSize,
  type ModelResponse,
  type ModelStepIO,
  type ModelStopCode,
  type ModelTask,
  type StepModel,
  type StepStatus,
  shorten,
} from "@meshflow/core";
import type { ChatMessage, ChatModel, ChatRequest, ChatTool } from "./ChatModel.js";
import { RequestDigest } from "./internal/RequestDigest.js";
import { resultForModel } from "./internal/resultText.js";
import { offeredTools, requestSize } from "./offeredTools.js";
import { FINISHING_TOOLS, type FinishingTool, REMINDER, systemPrompt, taskMessage } from "./prompt.js";
import { contextOf, requestParts, type TurnResults } from "./RequestParts.js";

/** Limits of one step's model loop. Every one is a flag of `flow run`. */
export interface ModelBudgets {
  /** Model turns per step (`--max-turns`). */
  maxTurns: number;
  /** Input + output tokens per step (`--max-step-tokens`); 0 for no limit. */
  maxStepTokens: number;
  /** Wall time of a step's loop in ms (`--step-timeout`); 0 for no limit. */
  stepTimeoutMs: number;
  /** Characters of one tool result sent back to the model (`--max-result-chars`). */
  maxResultChars: number;
}

/**
 * The defaults of {@link ModelBudgets}, for programs that build a catalog or harness themselves.
 */
export const DEFAULT_BUDGETS: Readonly<ModelBudgets> = Object.freeze({
  maxTurns: 30,
  maxStepTokens: 0,
  stepTimeoutMs: 600_000,
  maxResultChars: 20_000,
});

const STATUS_OF: Record<FinishingTool, StepStatus> = {
  step_pass: "passed",
  step_fail: "failed",
  step_block: "blocked",
};

function isFinishing(name: string): name is FinishingTool {
  return Object.hasOwn(FINISHING_TOOLS, name);
}

/** Whether each tool call of the conversation's last tool message failed. */
function lastResults(messages: readonly ChatMessage[]): TurnResults {
  const last = messages.at(-1);
  return last?.role === "tool" ? last.results.map((r) => ({ name: r.name, isError: r.isError })) : [];
}

/** Which variables hold a provider's key, for a refused key's message. */
function keyHint(provider: string): string {
  const variables = MODEL_PROVIDER_PARTS.find((p) => p.name === provider)?.keyVariables;
  return variables ? `check ${variables.slice().reverse().join(" or ")}` : "check the model's API key";
}

/** The model-driven think loop of one step: a {@link StepModel} over a {@link ChatModel}. */
export class ModelLoop implements StepModel {
  readonly #chat: ChatModel;
  readonly #budgets: ModelBudgets;

  constructor(chat: ChatModel, budgets: Partial<ModelBudgets> = {}) {
    this.#chat = chat;
    this.#budgets = { ...DEFAULT_BUDGETS, ...budgets };
  }

  get name(): string {
    return this.#chat.name;
  }

  /** The tools of a task as the model is offered them (without hints: they are not part of a request). */
  #tools(task: ModelTask): { tools: ChatTool[]; qualified: Map<string, string> } {
    const { tools, qualified } = offeredTools(task);
    return { tools: tools.map(({ annotations: _hints, ...tool }) => tool), qualified };
  }

  size(task: ModelTask): ModelRequestSize {
    return requestSize(task, this.#tools(task).tools);
  }

  async run(given: ModelTask, io: ModelStepIO): Promise<ModelClaim> {
    // A replay builds the step's prompt from the run context its recording kept, not from what the
    // run remembers now (later runs grew the story memory): it asks what the recording answered.
    const recordedContext = this.#chat.recordedContext?.(given.storyId, given.step);
    const task = recordedContext ? { ...given, ...recordedContext } : given;
    const budgets = this.#budgets;
    const { tools, qualified } = this.#tools(task);
    const system = systemPrompt(task);
    const parts = requestParts(task, system, tools);
    const context = contextOf(task);
    const messages: ChatMessage[] = [{ role: "user", text: taskMessage(task) }];
    const digests = new RequestDigest(system, tools);
    const usage = { inputTokens: 0, outputTokens: 0, turns: 0 };
    const calls: ModelClaim["calls"] = [];
    const where = `${task.storyId} step ${task.step}`;
    // Shared with the step that consulted this loop, if any: turns, tokens and time count for both.
    const spent = io.spent ?? { turns: 0, tokens: 0 };
    if (budgets.stepTimeoutMs > 0) spent.deadline ??= Date.now() + budgets.stepTimeoutMs;
    const deadline = spent.deadline ?? Number.POSITIVE_INFINITY;
    const timeout =
      spent.deadline === undefined ? undefined : AbortSignal.timeout(Math.max(1, spent.deadline - Date.now()));
    const signal = timeout ? AbortSignal.any([io.signal, timeout]) : io.signal;
    const stop = (status: StepStatus, code: ModelStopCode, summary: string): ModelClaim => ({
      status,
      code,
      summary: `${code}: ${summary}`,
      usage: { ...usage },
      calls,
    });
    const used = () =>
      `${usage.turns} turn(s), ${usage.inputTokens} input + ${usage.outputTokens} output tokens so far`;
    let reminded = false;

    for (let turn = 1; ; turn++) {
      if (io.signal.aborted) return stop("blocked", "aborted", `the run is stopping (${used()})`);
      if (spent.turns >= budgets.maxTurns)
        return stop("blocked", "budget_exhausted", `--max-turns ${budgets.maxTurns} reached (${used()})`);
      if (budgets.maxStepTokens > 0 && spent.tokens >= budgets.maxStepTokens)
        return stop("blocked", "budget_exhausted", `--max-step-tokens ${budgets.maxStepTokens} reached (${used()})`);
      if (Date.now() >= deadline)
        return stop("blocked", "budget_exhausted", `--step-timeout ${budgets.stepTimeoutMs} ms reached (${used()})`);

      const request: ChatRequest = { system, messages, tools };
      if (budgets.maxStepTokens > 0) request.maxOutputTokens = Math.max(1, budgets.maxStepTokens - spent.tokens);
      const digest = digests.of(messages);
      const recorded = await io.turns.get(turn);
      let response: ModelResponse;
      let latencyMs: number;
      let replayed: boolean;
      if (recorded) {
        if (recorded.requestDigest !== digest)
          return stop(
            "blocked",
            "replay_mismatch",
            `turn ${turn} of ${where}: the request differs from the one the journal recorded (the specialist's instructions, the story or the tools changed)`,
          );
        response = recorded.response;
        latencyMs = recorded.latencyMs;
        replayed = true;
      } else {
        const started = performance.now();
        try {
          const onText = io.onText?.bind(io, turn);
          response = await this.#chat.generate(
            request,
            {
              storyId: task.storyId,
              step: task.step,
              turn,
              requestDigest: digest,
              parts,
              context,
              ...(turn > 1 ? { results: lastResults(messages) } : {}),
            },
            signal,
            onText,
          );
        } catch (error) {
          if (isMeshflowError(error) && error.code === "replay_mismatch")
            return stop("blocked", "replay_mismatch", error.message);
          if (io.signal.aborted) return stop("blocked", "aborted", `the run is stopping (${used()})`);
          if (timeout?.aborted)
            return stop(
              "blocked",
              "budget_exhausted",
              `--step-timeout ${budgets.stepTimeoutMs} ms reached (${used()})`,
            );
          const message = error instanceof Error ? error.message : String(error);
          const status = (error as { statusCode?: unknown } | null)?.statusCode;
          if (status === 401 || status === 403)
            return stop(
              "blocked",
              "auth_failed",
              `${this.#chat.name} refused the key on turn ${turn} of ${where} (HTTP ${status}): ${keyHint(this.#chat.provider)}; ${message}`,
            );
          return stop("blocked", "model_error", `${this.#chat.name} failed on turn ${turn} of ${where}: ${message}`);
        }
        latencyMs = Math.round(performance.now() - started);
        replayed = this.#chat.replaying === true;
        // Journaled before any of its tool calls runs: a resume replays this turn, never asks again.
        await io.turns.record(turn, { model: this.#chat.name, requestDigest: digest, response, latencyMs });
      }
      for (const warning of replayed ? [] : (response.warnings ?? []))
        io.log?.(`${this.#chat.name} warned on turn ${turn} of ${where}: ${warning}`);
      usage.turns += 1;
      usage.inputTokens += response.usage.inputTokens;
      usage.outputTokens += response.usage.outputTokens;
      spent.turns += 1;
      spent.tokens += response.usage.inputTokens + response.usage.outputTokens;
      io.onTurn({
        turn,
        provider: this.#chat.provider,
        model: this.#chat.modelId,
        inputTokens: response.usage.inputTokens,
        outputTokens: response.usage.outputTokens,
        latencyMs,
        toolCalls: response.toolCalls.map((c) => qualified.get(c.name) ?? c.name),
        replayed,
        ...(response.text.trim() ? { text: shorten(response.text) } : {}),
      });
      messages.push({ role: "assistant", text: response.text, toolCalls: response.toolCalls });

      if (!response.toolCalls.length) {
        if (reminded)
          return stop(
            "blocked",
            "model_no_outcome",
            `the model answered twice without calling a tool or step_pass/step_fail/step_block (${used()})`,
          );
        reminded = true;
        messages.push({ role: "user", text: REMINDER });
        continue;
      }

      const finish = response.toolCalls.find((c) => isFinishing(c.name));
      const results: Array<{ id: string; name: string; text: string; isError: boolean }> = [];
      let failedWork = 0;
      for (const call of response.toolCalls) {
        if (isFinishing(call.name)) continue;
        if (call.invalid) {
          results.push({
            id: call.id,
            name: call.name,
            text: `error (invalid_arguments): ${call.invalid}`,
            isError: true,
          });
          calls.push({ tool: qualified.get(call.name) ?? call.name, isError: true, code: "invalid_arguments" });
          failedWork += 1;
          continue;
        }
        // A name the model was not offered still goes to the runtime, which refuses it (an event, never dropped).
        const name = qualified.get(call.name) ?? call.name;
        const result = await io.call(name, call.input);
        const isError = result.isError === true;
        if (isError) failedWork += 1;
        calls.push({ tool: name, isError, ...(result.code ? { code: result.code } : {}) });
        results.push({ id: call.id, name: call.name, text: resultForModel(result, budgets.maxResultChars), isError });
      }
      if (finish && failedWork === 0) {
        const name = finish.name as FinishingTool;
        const summary = typeof finish.input.summary === "string" ? finish.input.summary.trim() : "";
        return {
          status: STATUS_OF[name],
          finish: name,
          summary: summary || `${name} (no summary)`,
          usage: { ...usage },
          calls,
        };
      }
      for (const call of response.toolCalls)
        if (isFinishing(call.name))
          results.push({
            id: call.id,
            name: call.name,
            text:
              call === finish
                ? `not accepted: ${failedWork} call(s) of this turn failed; read their results, then finish again`
                : "ignored: only the first finishing call of a turn counts",
            isError: true,
          });
      messages.push({ role: "tool", results });
    }
  }
}
