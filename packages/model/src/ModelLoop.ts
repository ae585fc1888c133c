import {
  isMeshflowError,
  MODEL_PROVIDER_PARTS,
  type ModelClaim,
  type ModelRequestSize,
  type ModelResponse,
  type ModelStepIO,
  type ModelStopCode,
  type ModelTask,
  overridePrices,
  type PriceTable,
  priceOf,
  type StepModel,
  type StepStatus,
  shippedPrices,
  shorten,
} from "@meshflow/core";
import type { ChatMessage, ChatModel, ChatRequest, ChatTool } from "./ChatModel.js";
import { budgetStop } from "./internal/budgetStop.js";
import { ContextBudget } from "./internal/ContextBudget.js";
import { LoopSpend } from "./internal/LoopSpend.js";
import { RequestDigest } from "./internal/RequestDigest.js";
import { runToolCalls } from "./internal/runToolCalls.js";
import { DEFAULT_BUDGETS, type ModelBudgets } from "./ModelBudgets.js";
import { offeredTools, requestSize } from "./offeredTools.js";
import { FINISHING_TOOLS, type FinishingTool, REMINDER, systemPrompt, taskMessage } from "./prompt.js";
import { contextOf, requestParts, type TurnResults } from "./RequestParts.js";

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

/** True for a tool whose calls may run beside others: it only reads, or is idempotent and not destructive. */
function concurrentSafe(hints: Record<string, unknown> | undefined): boolean {
  return hints?.readOnlyHint === true || (hints?.idempotentHint === true && hints.destructiveHint === false);
}

/** A step's tools as its requests carry them, and what the loop needs to know of them. */
interface StepTools {
  tools: ChatTool[];
  qualified: Map<string, string>;
  /** Offered names of the tools whose calls may run side by side. */
  concurrent: Set<string>;
}

/** The model-driven think loop of one step: a {@link StepModel} over a {@link ChatModel}. */
export class ModelLoop implements StepModel {
  readonly #chat: ChatModel;
  readonly #budgets: ModelBudgets;
  readonly #prices: PriceTable;

  /** `prices`: the run's price table (default: the shipped one); the PRD's `prices` go over it per step. */
  constructor(chat: ChatModel, budgets: Partial<ModelBudgets> = {}, prices?: PriceTable) {
    this.#chat = chat;
    this.#budgets = { ...DEFAULT_BUDGETS, ...budgets };
    this.#prices = prices ?? shippedPrices();
  }

  get name(): string {
    return this.#chat.name;
  }

  /** The tools of a task as the model is offered them (without hints: they are not part of a request). */
  #tools(task: ModelTask): StepTools {
    const { tools, qualified } = offeredTools(task);
    const concurrent = new Set(tools.filter((t) => concurrentSafe(t.annotations)).map((t) => t.name));
    return { tools: tools.map(({ annotations: _hints, ...tool }) => tool), qualified, concurrent };
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
    const { tools, qualified, concurrent } = this.#tools(task);
    const system = systemPrompt(task);
    const parts = requestParts(task, system, tools);
    const runContext = contextOf(task);
    const messages: ChatMessage[] = [{ role: "user", text: taskMessage(task) }];
    const digests = new RequestDigest(system, tools);
    const prices = io.prices ? overridePrices(this.#prices, io.prices, "the PRD's prices") : this.#prices;
    const price = priceOf(prices, this.#chat.name);
    const window = budgets.contextWindow || price?.contextWindow || 0;
    const context = window > 0 ? new ContextBudget(window, budgets.contextShare, system, tools) : undefined;
    const calls: ModelClaim["calls"] = [];
    const where = `${task.storyId} step ${task.step}`;
    // Shared with the step that consulted this loop, if any: turns, tokens, cost and time count for both.
    const spent = io.spent ?? { turns: 0, tokens: 0 };
    const spend = new LoopSpend(price, spent, io.runSpent);
    if (budgets.stepTimeoutMs > 0) spent.deadline ??= Date.now() + budgets.stepTimeoutMs;
    const deadline = spent.deadline ?? Number.POSITIVE_INFINITY;
    const timeout =
      spent.deadline === undefined ? undefined : AbortSignal.timeout(Math.max(1, spent.deadline - Date.now()));
    const signal = timeout ? AbortSignal.any([io.signal, timeout]) : io.signal;
    const stop = (status: StepStatus, code: ModelStopCode, summary: string): ModelClaim => ({
      status,
      code,
      summary: `${code}: ${summary}`,
      usage: spend.snapshot(),
      calls,
    });
    let reminded = false;

    for (let turn = 1; ; turn++) {
      if (io.signal.aborted) return stop("blocked", "aborted", `the run is stopping (${spend.describe()})`);
      const over = budgetStop(budgets, spent, io.runSpent, deadline, spend, this.#chat.name);
      if (over) return stop("blocked", "budget_exhausted", over);
      const fit = context?.fit(messages);
      if (fit?.overflows)
        return stop(
          "blocked",
          "budget_exhausted",
          `the next request needs about ${fit.tokens} tokens, more than ${this.#chat.name}'s context window of ${window} even with every earlier tool result trimmed (${spend.describe()})`,
        );

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
          response = await this.#chat.generate(
            request,
            {
              storyId: task.storyId,
              step: task.step,
              turn,
              requestDigest: digest,
              parts,
              context: runContext,
              ...(turn > 1 ? { results: lastResults(messages) } : {}),
            },
            signal,
            io.onText?.bind(io, turn),
            (wait) => {
              const why = wait.retryAfter ? "as its Retry-After asks" : "backing off";
              io.log?.(
                `${this.#chat.name} answered ${wait.status ?? "no answer"} on turn ${turn} of ${where}; waiting ${(wait.waitMs / 1000).toFixed(1)} s (${why}) before try ${wait.attempt}`,
              );
              io.onWait?.(turn, wait);
            },
          );
        } catch (error) {
          if (isMeshflowError(error) && error.code === "replay_mismatch")
            return stop("blocked", "replay_mismatch", error.message);
          if (io.signal.aborted) return stop("blocked", "aborted", `the run is stopping (${spend.describe()})`);
          if (timeout?.aborted)
            return stop(
              "blocked",
              "budget_exhausted",
              `--step-timeout ${budgets.stepTimeoutMs} ms reached (${spend.describe()})`,
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
      context?.observe(messages, response.usage.inputTokens);
      const { cacheReadTokens, cacheWriteTokens } = response.usage;
      io.onTurn({
        turn,
        provider: this.#chat.provider,
        model: this.#chat.modelId,
        inputTokens: response.usage.inputTokens,
        outputTokens: response.usage.outputTokens,
        ...(cacheReadTokens ? { cacheReadTokens } : {}),
        ...(cacheWriteTokens ? { cacheWriteTokens } : {}),
        ...spend.count(response.usage),
        latencyMs,
        toolCalls: response.toolCalls.map((c) => qualified.get(c.name) ?? c.name),
        replayed,
        ...(response.text.trim() ? { text: shorten(response.text) } : {}),
        ...(fit?.trimmed ? { trimmedResults: fit.trimmed } : {}),
      });
      messages.push({ role: "assistant", text: response.text, toolCalls: response.toolCalls });

      if (!response.toolCalls.length) {
        if (reminded)
          return stop(
            "blocked",
            "model_no_outcome",
            `the model answered twice without calling a tool or step_pass/step_fail/step_block (${spend.describe()})`,
          );
        reminded = true;
        messages.push({ role: "user", text: REMINDER });
        continue;
      }

      const finish = response.toolCalls.find((c) => isFinishing(c.name));
      const work = await runToolCalls(
        response.toolCalls.filter((c) => !isFinishing(c.name)),
        {
          call: (name, input) => io.call(name, input),
          qualified,
          concurrent,
          parallel: budgets.parallelReads,
          maxResultChars: budgets.maxResultChars,
        },
      );
      calls.push(...work.records);
      if (finish && work.failed === 0) {
        const name = finish.name as FinishingTool;
        const summary = typeof finish.input.summary === "string" ? finish.input.summary.trim() : "";
        return {
          status: STATUS_OF[name],
          finish: name,
          summary: summary || `${name} (no summary)`,
          usage: spend.snapshot(),
          calls,
        };
      }
      const results = work.results;
      for (const call of response.toolCalls)
        if (isFinishing(call.name))
          results.push({
            id: call.id,
            name: call.name,
            text:
              call === finish
                ? `not accepted: ${work.failed} call(s) of this turn failed; read their results, then finish again`
                : "ignored: only the first finishing call of a turn counts",
            isError: true,
          });
      messages.push({ role: "tool", results });
    }
  }
}
