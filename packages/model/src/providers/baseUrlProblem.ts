import type { ModelProviderPart } from "@meshflow/core";

/**
 * Why a provider cannot be reached without `--model-base-url`, or undefined when it has an endpoint
 * of its own (or one was given).
 */
export function baseUrlProblem(name: string, part: ModelProviderPart, baseUrl: string | undefined): string | undefined {
  if (baseUrl || !("required" in part.baseUrl)) return undefined;
  const { example, server } = part.baseUrl.required;
  return `${name}: an ${part.name} model needs --model-base-url <url> (or FLOW_MODEL_BASE_URL), e.g. ${example} for ${server}`;
}

/** The endpoint a provider is probed at: the one given, else the provider's own. */
export function endpointOf(part: ModelProviderPart, baseUrl: string | undefined): string | undefined {
  return baseUrl ?? ("default" in part.baseUrl ? part.baseUrl.default : undefined);
}
