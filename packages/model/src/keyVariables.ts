import type { ModelProvider } from "@meshflow/core";

/** The environment variables a provider's key is read from, first set wins. */
export const KEY_VARIABLES: Readonly<Record<ModelProvider, readonly string[]>> = {
  anthropic: ["FLOW_MODEL_API_KEY", "ANTHROPIC_API_KEY"],
  openai: ["FLOW_MODEL_API_KEY", "OPENAI_API_KEY"],
  "openai-compatible": ["FLOW_MODEL_API_KEY"],
};

/**
 * Variables a user may expect a provider to send that it does not: `OPENAI_API_KEY` for an
 * `openai-compatible` endpoint (it speaks OpenAI's API, yet only `FLOW_MODEL_API_KEY` is sent).
 */
const EXPECTED_TOO: Readonly<Record<ModelProvider, readonly string[]>> = {
  anthropic: [],
  openai: [],
  "openai-compatible": ["OPENAI_API_KEY"],
};

/**
 * One sentence per key variable that is set in `env` but not sent to a model of `provider`: a
 * variable of {@link KEY_VARIABLES} that an earlier one overrides, or one the provider never reads.
 * Empty when every set variable is used.
 */
export function unusedKeyVariables(
  provider: ModelProvider,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const read = KEY_VARIABLES[provider];
  const sent = read.find((v) => env[v]);
  const messages: string[] = [];
  for (const variable of [...read, ...EXPECTED_TOO[provider]]) {
    if (!env[variable] || variable === sent) continue;
    messages.push(
      read.includes(variable)
        ? `${variable} is set but not sent to ${provider} models: ${sent} comes first and is sent instead`
        : `${variable} is set but not sent to ${provider} models, which read only ${read.join(" or ")}${sent ? ` (${sent} is sent)` : `: set ${read[0]} to send a key`}`,
    );
  }
  return messages;
}
