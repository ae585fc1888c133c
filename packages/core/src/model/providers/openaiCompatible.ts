import { defineModelProvider } from "./ModelProviderPart.js";

/** Any server that speaks OpenAI's Chat Completions (Ollama, vLLM, LM Studio, a gateway). */
export const openaiCompatible = defineModelProvider({
  name: "openai-compatible",
  help: "any server that speaks OpenAI's Chat Completions (Ollama, vLLM, LM Studio), at --model-base-url",
  exampleModel: "llama3.1",
  sdkPackage: "@ai-sdk/openai-compatible",
  // A local server usually takes no key; one that does reads it from here.
  keyVariables: ["FLOW_MODEL_API_KEY"],
  // It speaks OpenAI's API, so users expect their OpenAI key to be sent; it is not.
  notSent: ["OPENAI_API_KEY"],
  keyRequired: false,
  promptCache: "automatic",
  baseUrl: { required: { example: "http://127.0.0.1:11434/v1", server: "Ollama" } },
});
