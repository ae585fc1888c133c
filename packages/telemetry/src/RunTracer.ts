import type { RunEvent, TokenCount } from "@meshflow/core";
import {
  GEN_AI_OPERATION_NAME,
  GEN_AI_PROVIDER_NAME,
  GEN_AI_REQUEST_MODEL,
  GEN_AI_SYSTEM,
  GEN_AI_TOOL_NAME,
  GEN_AI_USAGE_CACHE_READ,
  GEN_AI_USAGE_CACHE_WRITE,
  GEN_AI_USAGE_INPUT_TOKENS,
  GEN_AI_USAGE_OUTPUT_TOKENS,
} from "./genAiAttributes.js";
import type { StartSpanOptions } from "./StartSpanOptions.js";
import type { TraceSpan } from "./TraceSpan.js";

type EventOf<T extends RunEvent["type"]> = Extract<RunEvent, { type: T }>;

const at = (event: { time: string }) => new Date(event.time);
const stepKey = (storyId: string, step: number) => `${storyId}/step${step}`;

/** What a {@link RunTracer} needs of its `Tracing`: spans, and the tool spans open by call key. */
export interface RunSpans {
  startSpan(name: string, options?: StartSpanOptions): TraceSpan;
  openTool(key: string, span: TraceSpan): void;
  closeTool(key: string): TraceSpan | undefined;
}

/**
 * Spans of one run, built from its events (the runtime is not touched): `run` → `story` → `step` →
 * `tool` (a call, parent of a worker's `call` span when queued) and `chat <model>` (a model turn, with
 * the GenAI semantic-convention attributes). Times are the events' own. Refusals and failures set
 * the span status to ERROR and add an event with the code and message.
 */
export class RunTracer {
  readonly #tracing: RunSpans;
  readonly #parent: string | undefined;
  readonly #prd: string | undefined;
  #run: TraceSpan | undefined;
  readonly #stories = new Map<string, TraceSpan>();
  readonly #steps = new Map<string, TraceSpan>();
  /** Tool-call keys this run opened (closed in the shared registry when they end). */
  readonly #tools = new Set<string>();

  /** `parent`: a `traceparent` for the run span; `prd`: the PRD's name to show instead of the event's path. */
  constructor(tracing: RunSpans, parent?: string, prd?: string) {
    this.#tracing = tracing;
    this.#parent = parent;
    this.#prd = prd;
  }

  onEvent(event: RunEvent): void {
    switch (event.type) {
      case "run.started":
      case "run.resumed":
        this.#run = this.#tracing.startSpan(`run ${this.#prd ?? event.prd}`, {
          ...(this.#parent ? { parent: this.#parent } : {}),
          startTime: at(event),
          attributes: {
            "meshflow.run.id": event.runId,
            "meshflow.prd": this.#prd ?? event.prd,
            "meshflow.run.resumed": event.type === "run.resumed",
            ...(event.type === "run.started" ? { "meshflow.run.stories": event.stories } : {}),
          },
        });
        return;
      case "story.started":
        this.#stories.set(
          event.storyId,
          this.#tracing.startSpan(`story ${event.storyId}`, {
            ...(this.#run ? { parent: this.#run } : {}),
            startTime: at(event),
            attributes: { "meshflow.run.id": event.runId, "meshflow.story.id": event.storyId },
          }),
        );
        return;
      case "step.started":
        this.#steps.set(
          stepKey(event.storyId, event.step),
          this.#tracing.startSpan(`step ${event.step} ${event.specialist}`, {
            ...this.#parentOf(this.#stories.get(event.storyId)),
            startTime: at(event),
            attributes: {
              "meshflow.story.id": event.storyId,
              "meshflow.step": event.step,
              "meshflow.specialist": event.specialist,
              "meshflow.step.tools": event.tools,
            },
          }),
        );
        return;
      case "tool.called":
        this.#toolCalled(event);
        return;
      case "tool.result":
        this.#toolResult(event);
        return;
      case "tool.refused":
        this.#toolRefused(event);
        return;
      case "model.turn":
        this.#modelTurn(event);
        return;
      case "step.finished": {
        const key = stepKey(event.storyId, event.step);
        const span = this.#steps.get(key);
        this.#steps.delete(key);
        if (!span) return;
        span.set({
          "meshflow.step.status": event.status,
          "meshflow.step.calls": event.calls,
          ...usageAttributes(event.tokens),
          "meshflow.step.cost_usd": event.tokens?.costUsd,
        });
        if (event.status === "passed") span.ok();
        else span.fail(`${event.status}: ${event.summary}`);
        span.end(at(event));
        return;
      }
      case "gate.finished":
        this.#stories.get(event.storyId)?.event(
          "gate.finished",
          {
            "meshflow.gate.passed": event.passed,
            "meshflow.gate.commands": event.commands,
            "meshflow.gate.summary": event.summary,
            "meshflow.gate.failed_command": event.failed?.command,
          },
          at(event),
        );
        return;
      case "story.finished": {
        const span = this.#stories.get(event.storyId);
        this.#stories.delete(event.storyId);
        if (!span) return;
        span.set({
          "meshflow.story.status": event.status,
          ...usageAttributes(event.tokens),
          "meshflow.story.cost_usd": event.tokens?.costUsd,
        });
        if (event.status === "passed" || event.status === "skipped") span.ok();
        else span.fail(`${event.status}: ${event.summary}`);
        span.end(at(event));
        return;
      }
      case "run.finished":
        this.#runFinished(event);
        return;
    }
  }

  #parentOf(span: TraceSpan | undefined): { parent?: TraceSpan } {
    const parent = span ?? this.#run;
    return parent ? { parent } : {};
  }

  #stepParent(storyId: string, step: number): { parent?: TraceSpan } {
    return this.#parentOf(this.#steps.get(stepKey(storyId, step)) ?? this.#stories.get(storyId));
  }

  #toolCalled(event: EventOf<"tool.called">): void {
    const span = this.#tracing.startSpan(`tool ${event.tool}`, {
      ...this.#stepParent(event.storyId, event.step),
      kind: "client",
      startTime: at(event),
      attributes: {
        [GEN_AI_OPERATION_NAME]: "execute_tool",
        [GEN_AI_TOOL_NAME]: event.tool,
        "meshflow.tool.key": event.key,
        "meshflow.tool.args_digest": event.argsDigest,
        "meshflow.tool.destructive": event.destructive,
      },
    });
    this.#tools.add(event.key);
    this.#tracing.openTool(event.key, span);
  }

  #toolResult(event: EventOf<"tool.result">): void {
    this.#tools.delete(event.key);
    const span = this.#tracing.closeTool(event.key);
    if (!span) return;
    span.set({
      "meshflow.tool.is_error": event.isError,
      "meshflow.tool.result_digest": event.resultDigest,
      "meshflow.tool.replayed": event.replayed === true,
    });
    if (event.isError) span.fail(`${event.tool} answered with an error`);
    span.end(at(event));
  }

  #toolRefused(event: EventOf<"tool.refused">): void {
    if (event.key) this.#tools.delete(event.key);
    const open = event.key ? this.#tracing.closeTool(event.key) : undefined;
    const span =
      open ??
      this.#tracing.startSpan(`tool ${event.tool}`, {
        ...this.#stepParent(event.storyId, event.step),
        kind: "client",
        startTime: at(event),
        attributes: { [GEN_AI_OPERATION_NAME]: "execute_tool", [GEN_AI_TOOL_NAME]: event.tool },
      });
    span
      .set({
        "meshflow.tool.key": event.key,
        "meshflow.tool.code": event.code,
        "meshflow.tool.destructive": event.destructive,
      })
      .event("tool.refused", { "meshflow.tool.code": event.code, "meshflow.tool.message": event.message }, at(event))
      .fail(`${event.code}: ${event.message}`)
      .end(at(event));
  }

  #modelTurn(event: EventOf<"model.turn">): void {
    const end = at(event);
    this.#tracing
      .startSpan(`chat ${event.model}`, {
        ...this.#stepParent(event.storyId, event.step),
        kind: "client",
        startTime: new Date(end.getTime() - Math.max(0, event.latencyMs)),
        attributes: {
          [GEN_AI_OPERATION_NAME]: "chat",
          [GEN_AI_PROVIDER_NAME]: event.provider,
          [GEN_AI_SYSTEM]: event.provider,
          [GEN_AI_REQUEST_MODEL]: event.model,
          [GEN_AI_USAGE_INPUT_TOKENS]: event.inputTokens,
          [GEN_AI_USAGE_OUTPUT_TOKENS]: event.outputTokens,
          [GEN_AI_USAGE_CACHE_READ]: event.cacheReadTokens,
          [GEN_AI_USAGE_CACHE_WRITE]: event.cacheWriteTokens,
          "meshflow.model.turn": event.turn,
          "meshflow.model.tool_calls": event.toolCalls,
          "meshflow.model.replayed": event.replayed === true,
          "meshflow.model.session": event.session,
          "meshflow.model.cost_usd": event.costUsd,
          "meshflow.model.cost_unknown": event.costUnknown,
          "meshflow.model.trimmed_results": event.trimmedResults,
        },
      })
      .end(end);
  }

  #runFinished(event: EventOf<"run.finished">): void {
    const end = at(event);
    // Whatever the run left open (an aborted run) ends with it.
    for (const key of this.#tools) this.#tracing.closeTool(key)?.fail("the run ended first").end(end);
    this.#tools.clear();
    for (const span of [...this.#steps.values(), ...this.#stories.values()]) span.fail("the run ended first").end(end);
    this.#steps.clear();
    this.#stories.clear();
    const run = this.#run;
    if (!run) return;
    run.set({
      "meshflow.run.status": event.status,
      "meshflow.run.passed": event.passed,
      "meshflow.run.failed": event.failed,
      "meshflow.run.blocked": event.blocked,
      ...usageAttributes(event.tokens),
      "meshflow.run.cost_usd": event.tokens?.costUsd,
    });
    if (event.error)
      run.event("exception", { "exception.type": event.error.code, "exception.message": event.error.message }, end);
    if (event.status === "passed") run.ok();
    else run.fail(event.error ? `${event.error.code}: ${event.error.message}` : event.status);
    run.end(end);
  }
}

/** The `gen_ai.usage.*` attributes of a step's, story's or run's tokens (absent ones are left out by the span). */
function usageAttributes(tokens: TokenCount | undefined) {
  return {
    [GEN_AI_USAGE_INPUT_TOKENS]: tokens?.input,
    [GEN_AI_USAGE_OUTPUT_TOKENS]: tokens?.output,
    [GEN_AI_USAGE_CACHE_READ]: tokens?.cacheRead,
    [GEN_AI_USAGE_CACHE_WRITE]: tokens?.cacheWrite,
    "meshflow.unpriced_turns": tokens?.unpricedTurns,
  };
}
