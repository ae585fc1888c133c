import { anthropic } from "./anthropic.js";
import type { ModelProviderPart } from "./ModelProviderPart.js";
import { openai } from "./openai.js";
import { openaiCompatible } from "./openaiCompatible.js";

/**
 * The model providers meshflow reaches through the AI SDK, in the order help texts name them.
 * Adding a provider is a part file beside this one and an entry here.
 */
export const MODEL_PROVIDER_PARTS = [anthropic, openai, openaiCompatible] as const;

/** A provider name of {@link MODEL_PROVIDER_PARTS}. */
export type ModelProvider = (typeof MODEL_PROVIDER_PARTS)[number]["name"];

/** The provider names, in list order. */
export const MODEL_PROVIDERS: readonly ModelProvider[] = MODEL_PROVIDER_PARTS.map((p) => p.name);

/** The part of a provider name. */
export function modelProviderPart(provider: ModelProvider): ModelProviderPart<ModelProvider> {
  const part = MODEL_PROVIDER_PARTS.find((p) => p.name === provider);
  // Unreachable for a ModelProvider; a string cast to one names itself in the error.
  if (!part) throw new Error(`unknown model provider "${provider}"`);
  return part;
}

/** What the CLI's and the gateway's help texts say about providers, derived from the parts. */
export const MODEL_HELP = {
  /** `anthropic, openai, openai-compatible`. */
  names: MODEL_PROVIDERS.join(", "),
  /** `anthropic:…, openai:…, openai-compatible:…`. */
  prefixes: MODEL_PROVIDERS.map((name) => `${name}:…`).join(", "),
  /** `anthropic:claude-sonnet-4-5, openai:gpt-4.1, …`. */
  examples: MODEL_PROVIDER_PARTS.map((p) => `${p.name}:${p.exampleModel}`).join(", "),
  /** Every key variable once, in list order. */
  keyVariables: [...new Set(MODEL_PROVIDER_PARTS.flatMap((p) => p.keyVariables))].join(", "),
  /** Which variables each provider's key is read from, the first set wins (`--model`'s help). */
  keys: `Keys: ${MODEL_PROVIDER_PARTS.map(keysSentence).join("; ")}`,
  /** `http://127.0.0.1:11434/v1 (Ollama)`: the first provider's endpoint that has to be given. */
  baseUrlExample: MODEL_PROVIDER_PARTS.flatMap((p) =>
    "required" in p.baseUrl ? [`${p.baseUrl.required.example} (${p.baseUrl.required.server})`] : [],
  ).join(", "),
} as const;

/** `openai reads FLOW_MODEL_API_KEY, else OPENAI_API_KEY`, or `… reads only X (Y is not sent; a warning says so)`. */
function keysSentence(part: ModelProviderPart): string {
  const read =
    part.keyVariables.length === 1
      ? `reads only ${part.keyVariables[0]}`
      : `reads ${part.keyVariables.join(", else ")}`;
  const notSent = part.notSent?.length ? ` (${part.notSent.join(", ")} is not sent; a warning says so)` : "";
  return `${part.name} ${read}${notSent}`;
}
