import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { AiSdkPackage, ModelProviderPart } from "@meshflow/core";

/** What a factory gets: the provider, the model id and how to reach it. */
interface FactoryInput {
  part: ModelProviderPart;
  modelId: string;
  baseURL: string | undefined;
  apiKey: string | undefined;
}

/** Builds a language model with one AI SDK provider package, loaded on first use. */
type SdkFactory = (input: FactoryInput) => Promise<LanguageModelV3>;

/**
 * One factory per AI SDK package a provider part may name. The packages load on first use: runs
 * without a model never load them.
 */
export const SDK_FACTORIES: Readonly<Record<AiSdkPackage, SdkFactory>> = {
  "@ai-sdk/anthropic": async ({ modelId, baseURL, apiKey }) => {
    const { createAnthropic } = await import("@ai-sdk/anthropic");
    return createAnthropic({ ...(baseURL ? { baseURL } : {}), apiKey: apiKey ?? "" })(modelId);
  },
  // Chat Completions, not the Responses API: the wire every OpenAI-like endpoint shares.
  "@ai-sdk/openai": async ({ modelId, baseURL, apiKey }) => {
    const { createOpenAI } = await import("@ai-sdk/openai");
    return createOpenAI({ ...(baseURL ? { baseURL } : {}), apiKey: apiKey ?? "" }).chat(modelId);
  },
  "@ai-sdk/openai-compatible": async ({ part, modelId, baseURL, apiKey }) => {
    const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
    // The URL is checked by languageModel before any factory runs; the SDK requires one.
    return createOpenAICompatible({
      name: part.name,
      baseURL: baseURL ?? "",
      ...(apiKey ? { apiKey } : {}),
      // Streamed turns count their tokens as the others do (`stream_options.include_usage`; streams only).
      includeUsage: true,
    }).chatModel(modelId);
  },
};
