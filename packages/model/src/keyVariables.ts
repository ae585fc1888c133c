import type { ModelProvider } from "@meshflow/core";

/** The environment variables a provider's key is read from, first set wins. */
export const KEY_VARIABLES: Readonly<Record<ModelProvider, readonly string[]>> = {
  anthropic: ["FLOW_MODEL_API_KEY", "ANTHROPIC_API_KEY"],
  openai: ["FLOW_MODEL_API_KEY", "OPENAI_API_KEY"],
  "openai-compatible": ["FLOW_MODEL_API_KEY"],
};
