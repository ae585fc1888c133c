import { type ModelProvider, modelProviderPart } from "@meshflow/core";

/**
 * One sentence per key variable that is set in `env` but not sent to a model of `provider`: one of
 * the provider's key variables that an earlier one overrides, or one it never reads (its `notSent`).
 * Empty when every set variable is used.
 */
export function unusedKeyVariables(
  provider: ModelProvider,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const part = modelProviderPart(provider);
  const read = part.keyVariables;
  const sent = read.find((v) => env[v]);
  const messages: string[] = [];
  for (const variable of [...read, ...(part.notSent ?? [])]) {
    if (!env[variable] || variable === sent) continue;
    messages.push(
      read.includes(variable)
        ? `${variable} is set but not sent to ${provider} models: ${sent} comes first and is sent instead`
        : `${variable} is set but not sent to ${provider} models, which read only ${read.join(" or ")}${sent ? ` (${sent} is sent)` : `: set ${read[0]} to send a key`}`,
    );
  }
  return messages;
}
