import { MeshflowError, type ModelRef, type ModelResponse } from "@meshflow/core";
import type { LanguageModel, ModelMessage, ToolSet } from "ai";
import type { ChatMessage, ChatModel, ChatRequest, ChatTool } from "./ChatModel.js";

/** How a provider is reached. */
export interface ProviderSettings {
  /** The endpoint (`--model-base-url` / `FLOW_MODEL_BASE_URL`); the provider's own default when absent. */
  baseUrl?: string;
  apiKey?: string;
  /** Retries of a failed request by the AI SDK (default 2). */
  maxRetries?: number;
}

/**
 * The AI SDK language model of a model name: Anthropic Messages, OpenAI Chat Completions, or any
 * OpenAI-compatible server. The provider packages load on first use: runs without a model never load them.
 */
export async function languageModel(ref: ModelRef, settings: ProviderSettings): Promise<LanguageModel> {
  const baseURL = settings.baseUrl;
  if (ref.provider === "anthropic") {
    const { createAnthropic } = await import("@ai-sdk/anthropic");
    return createAnthropic({ ...(baseURL ? { baseURL } : {}), apiKey: settings.apiKey ?? "" })(ref.modelId);
  }
  if (ref.provider === "openai") {
    const { createOpenAI } = await import("@ai-sdk/openai");
    return createOpenAI({ ...(baseURL ? { baseURL } : {}), apiKey: settings.apiKey ?? "" }).chat(ref.modelId);
  }
  if (!baseURL)
    throw new MeshflowError(
      "usage",
      `${ref.name}: an openai-compatible model needs --model-base-url <url> (or FLOW_MODEL_BASE_URL), e.g. http://127.0.0.1:11434/v1 for Ollama`,
    );
  const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
  return createOpenAICompatible({
    name: "openai-compatible",
    baseURL,
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
  }).chatModel(ref.modelId);
}

/** The AI SDK's form of meshflow's messages. */
export function toModelMessages(messages: readonly ChatMessage[]): ModelMessage[] {
  return messages.map((m): ModelMessage => {
    if (m.role === "user") return { role: "user", content: m.text };
    if (m.role === "assistant")
      return {
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
      };
    return {
      role: "tool",
      content: m.results.map((r) => ({
        type: "tool-result" as const,
        toolCallId: r.id,
        toolName: r.name,
        output: r.isError ? { type: "error-text" as const, value: r.text } : { type: "text" as const, value: r.text },
      })),
    };
  });
}

/** The AI SDK tool set of a request: definitions only, no `execute` — meshflow runs every call itself. */
export async function toToolSet(tools: readonly ChatTool[]): Promise<ToolSet> {
  const { jsonSchema, tool } = await import("ai");
  const set: ToolSet = {};
  for (const t of tools)
    set[t.name] = tool({ description: t.description, inputSchema: jsonSchema(t.inputSchema as never) });
  return set;
}

function asInput(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** A {@link ChatModel} over the AI SDK: one `generateText` step per turn, tool calls returned, never executed. */
export class AiSdkChatModel implements ChatModel {
  readonly provider: string;
  readonly modelId: string;
  readonly name: string;
  readonly #ref: ModelRef;
  readonly #settings: ProviderSettings;
  #model: LanguageModel | undefined;
  readonly #maxRetries: number;

  constructor(ref: ModelRef, settings: ProviderSettings) {
    this.provider = ref.provider;
    this.modelId = ref.modelId;
    this.name = ref.name;
    this.#ref = ref;
    this.#settings = settings;
    this.#maxRetries = settings.maxRetries ?? 2;
  }

  async generate(request: ChatRequest, _turn: unknown, signal: AbortSignal): Promise<ModelResponse> {
    const { generateText } = await import("ai");
    // The SDK prints its warnings on stdout and stderr, where they would break `--json` and the live
    // view; they reach the run's log instead (ModelResponse.warnings).
    (globalThis as { AI_SDK_LOG_WARNINGS?: unknown }).AI_SDK_LOG_WARNINGS = false;
    this.#model ??= await languageModel(this.#ref, this.#settings);
    const result = await generateText({
      model: this.#model,
      system: request.system,
      messages: toModelMessages(request.messages),
      tools: await toToolSet(request.tools),
      toolChoice: "auto",
      maxRetries: this.#maxRetries,
      abortSignal: signal,
      ...(request.maxOutputTokens ? { maxOutputTokens: request.maxOutputTokens } : {}),
    });
    return {
      text: result.text,
      // Calls the SDK marks invalid (an unknown tool, arguments off the schema) still go to the runtime,
      // which refuses them as events; only arguments that are not a JSON object cannot be passed on.
      toolCalls: result.toolCalls.map((c) => {
        const isObject = typeof c.input === "object" && c.input !== null && !Array.isArray(c.input);
        const invalid = isObject ? undefined : `the arguments are not a JSON object: ${String(c.input).slice(0, 200)}`;
        return { id: c.toolCallId, name: c.toolName, input: asInput(c.input), ...(invalid ? { invalid } : {}) };
      }),
      ...(result.warnings?.length ? { warnings: result.warnings.map((w) => JSON.stringify(w)) } : {}),
      usage: { inputTokens: result.usage.inputTokens ?? 0, outputTokens: result.usage.outputTokens ?? 0 },
      finishReason: result.finishReason,
    };
  }
}
