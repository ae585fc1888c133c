import { defineModelProvider } from "./ModelProviderPart.js";

/** Claude models through Anthropic's Messages API. */
export const anthropic = defineModelProvider({
  name: "anthropic",
  help: "Claude models through Anthropic's Messages API",
  exampleModel: "claude-sonnet-4-5",
  sdkPackage: "@ai-sdk/anthropic",
  keyVariables: ["FLOW_MODEL_API_KEY", "ANTHROPIC_API_KEY"],
  keyRequired: true,
  promptCache: "breakpoints",
  baseUrl: { default: "https://api.anthropic.com/v1" },
});
