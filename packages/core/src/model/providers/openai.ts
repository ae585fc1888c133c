import { defineModelProvider } from "./ModelProviderPart.js";

/** OpenAI's models through its Chat Completions API. */
export const openai = defineModelProvider({
  name: "openai",
  help: "OpenAI's models through its Chat Completions API",
  exampleModel: "gpt-4.1",
  sdkPackage: "@ai-sdk/openai",
  keyVariables: ["FLOW_MODEL_API_KEY", "OPENAI_API_KEY"],
  keyRequired: true,
  promptCache: "automatic",
  baseUrl: { default: "https://api.openai.com/v1" },
});
