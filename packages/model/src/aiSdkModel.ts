import type {
  LanguageModelV3,
  LanguageModelV3FunctionTool,
  LanguageModelV3Prompt,
  LanguageModelV3ToolCall,
} from "@ai-sdk/provider";
import { checkJsonLimits, MeshflowError, type ModelRef, type ModelResponse, modelProviderPart } from "@meshflow/core";
import type { ChatMessage, ChatModel, ChatRequest, ChatTool, TextListener, WaitListener } from "./ChatModel.js";
import { markCacheBreakpoints } from "./internal/cacheMarks.js";
import { streamedTurn, type TurnResult } from "./internal/streamedTurn.js";
import { withRetries } from "./internal/withRetries.js";
import { baseUrlProblem } from "./providers/baseUrlProblem.js";
import { SDK_FACTORIES } from "./providers/sdkFactories.js";

/** How a provider is reached. */
export interface ProviderSettings {
  /** The endpoint (`--model-base-url` / `FLOW_MODEL_BASE_URL`); the provider's own default when absent. */
  baseUrl?: string;
  apiKey?: string;
  /** Retries of a request that failed in a way worth retrying (429, 5xx, a dropped connection); default 2. */
  maxRetries?: number;
  /** The first retry's delay in ms, doubled for each next one; default 2,000. */
  retryDelayMs?: number;
  /** Longest wait a provider's `Retry-After` may ask for, in ms (`--max-retry-wait`); default 60,000. */
  maxRetryWaitMs?: number;
}

/**
 * The AI SDK language model of a model name, built by the factory of its provider part's package
 * (Anthropic Messages, OpenAI Chat Completions, any OpenAI-compatible server).
 */
async function languageModel(ref: ModelRef, settings: ProviderSettings): Promise<LanguageModelV3> {
  const part = modelProviderPart(ref.provider);
  const problem = baseUrlProblem(ref.name, part, settings.baseUrl);
  if (problem) throw new MeshflowError("usage", problem);
  return SDK_FACTORIES[part.sdkPackage]({
    part,
    modelId: ref.modelId,
    baseURL: settings.baseUrl,
    apiKey: settings.apiKey,
  });
}

/**
 * The provider-level prompt of a request: the system prompt, then meshflow's messages; with cache
 * breakpoints for a provider that caches only up to them.
 */
function toPrompt(request: ChatRequest, breakpoints: boolean): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = [{ role: "system", content: request.system }];
  for (const m of request.messages) {
    if (m.role === "user") prompt.push({ role: "user", content: [{ type: "text", text: m.text }] });
    else if (m.role === "assistant")
      prompt.push({
        role: "assistant",
        content: [
          ...(m.text ? [{ type: "text" as const, text: m.text }] : []),
          ...m.toolCalls.map((c) => ({
            type: "tool-call" as const,
            toolCallId: c.id,
            toolName: c.name,
            input: c.input,
          })),
        ],
      });
    else prompt.push({ role: "tool", content: m.results.map(toolResultPart) });
  }
  if (breakpoints) markCacheBreakpoints(prompt);
  return prompt;
}

function toolResultPart(r: Extract<ChatMessage, { role: "tool" }>["results"][number]) {
  return {
    type: "tool-result" as const,
    toolCallId: r.id,
    toolName: r.name,
    output: r.isError ? { type: "error-text" as const, value: r.text } : { type: "text" as const, value: r.text },
  };
}

/** The provider-level tool definitions: names, descriptions and JSON Schemas, no code. */
function toTools(tools: readonly ChatTool[]): LanguageModelV3FunctionTool[] {
  return tools.map((t) => ({
    type: "function",
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema as LanguageModelV3FunctionTool["inputSchema"],
  }));
}

/** A tool call's input as an object, or why it is not one. */
function parseInput(call: LanguageModelV3ToolCall): { input: Record<string, unknown>; invalid?: string } {
  let value: unknown;
  try {
    value = call.input.trim() ? JSON.parse(call.input) : {};
  } catch {
    return { input: {}, invalid: `the arguments are not JSON: ${call.input.slice(0, 200)}` };
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    // Here, before the turn is journaled, digested or recorded: each of those walks the input
    // recursively, and arguments nested thousands deep would overflow the stack on the first.
    const tooBig = checkJsonLimits(value);
    if (tooBig) return { input: {}, invalid: `arguments at ${tooBig.path}: ${tooBig.message}` };
    return { input: value as Record<string, unknown> };
  }
  return { input: {}, invalid: `the arguments are not a JSON object: ${call.input.slice(0, 200)}` };
}

/** meshflow's response of a provider's answer: the text, the tool calls (inputs parsed), usage, finish, warnings. */
function responseOf(result: TurnResult): ModelResponse {
  let text = "";
  const toolCalls: ModelResponse["toolCalls"] = [];
  for (const part of result.content) {
    if (part.type === "text") text += part.text;
    else if (part.type === "tool-call" && !part.providerExecuted) {
      const { input, invalid } = parseInput(part);
      toolCalls.push({ id: part.toolCallId, name: part.toolName, input, ...(invalid ? { invalid } : {}) });
    }
  }
  const { cacheRead, cacheWrite } = result.usage.inputTokens;
  return {
    text,
    toolCalls,
    usage: {
      inputTokens: result.usage.inputTokens.total ?? 0,
      outputTokens: result.usage.outputTokens.total ?? 0,
      // Anthropic's cache_read_input_tokens / cache_creation_input_tokens, OpenAI's cached_tokens.
      ...(cacheRead ? { cacheReadTokens: cacheRead } : {}),
      ...(cacheWrite ? { cacheWriteTokens: cacheWrite } : {}),
    },
    finishReason: result.finishReason.unified,
    ...(result.warnings.length ? { warnings: result.warnings.map((w) => JSON.stringify(w)) } : {}),
  };
}

/**
 * A {@link ChatModel} over an AI SDK provider: one `doGenerate` call of the provider's language model
 * per turn, with meshflow's own conversation and tools — or, when someone listens to the text as it
 * arrives, one `doStream` call gathered into the same response. It goes below `generateText` on purpose:
 * the loop owns the conversation, runs every tool call itself and journals each turn, so it needs
 * neither the SDK's tool loop nor its re-validation of the whole history on every turn.
 */
export class AiSdkChatModel implements ChatModel {
  readonly provider: string;
  readonly modelId: string;
  readonly name: string;
  readonly #ref: ModelRef;
  readonly #settings: ProviderSettings;
  readonly #breakpoints: boolean;
  #model: Promise<LanguageModelV3> | undefined;

  constructor(ref: ModelRef, settings: ProviderSettings) {
    this.provider = ref.provider;
    this.modelId = ref.modelId;
    this.name = ref.name;
    this.#ref = ref;
    this.#settings = settings;
    this.#breakpoints = modelProviderPart(ref.provider).promptCache === "breakpoints";
  }

  async generate(
    request: ChatRequest,
    _turn: unknown,
    signal: AbortSignal,
    onText?: TextListener,
    onWait?: WaitListener,
  ): Promise<ModelResponse> {
    this.#model ??= languageModel(this.#ref, this.#settings);
    const model = await this.#model;
    const result = await withRetries(
      () => {
        const options = {
          prompt: toPrompt(request, this.#breakpoints),
          tools: toTools(request.tools),
          toolChoice: { type: "auto" as const },
          abortSignal: signal,
          ...(request.maxOutputTokens ? { maxOutputTokens: request.maxOutputTokens } : {}),
        };
        // Streamed only for a listener: a run nobody watches sends the very request it always did.
        return onText ? streamedTurn(model, options, onText) : model.doGenerate(options);
      },
      {
        maxRetries: this.#settings.maxRetries ?? 2,
        signal,
        ...(this.#settings.retryDelayMs !== undefined ? { initialDelayMs: this.#settings.retryDelayMs } : {}),
        ...(this.#settings.maxRetryWaitMs !== undefined ? { maxRetryWaitMs: this.#settings.maxRetryWaitMs } : {}),
        ...(onWait ? { onWait } : {}),
      },
    );
    return responseOf(result);
  }
}
