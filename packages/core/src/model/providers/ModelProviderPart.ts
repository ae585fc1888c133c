/**
 * The AI SDK provider packages `@meshflow/model` knows how to build a language model from. A provider
 * on one of them is one part file and one list entry; a provider on a new package also needs the
 * package installed in `@meshflow/model` and its factory there (tsc names the missing one).
 */
export type AiSdkPackage = "@ai-sdk/anthropic" | "@ai-sdk/openai" | "@ai-sdk/openai-compatible";

/** Where a provider's requests go when `--model-base-url` / `FLOW_MODEL_BASE_URL` is not given. */
export type BaseUrlRule =
  /** The provider's own endpoint (probed by `flow run` before the first story). */
  | { default: string }
  /** No endpoint of its own: the flag is required; `example` and `server` show one in messages and help. */
  | { required: { example: string; server: string } };

/**
 * A model provider as a named part: everything meshflow says or does that differs between providers.
 * Name resolution (`ModelNameSchema`, `parseModelName`), the AI SDK factory, key look-up, the
 * endpoint probe and the help texts of the CLI and the gateway all derive from the list of parts.
 */
export interface ModelProviderPart<Name extends string = string> {
  /** The `<provider>` of `<provider>:<model-id>`. */
  readonly name: Name;
  /** One line saying what the provider reaches (README tables, `flow run --help`'s examples). */
  readonly help: string;
  /** A model id shown in examples (`anthropic:claude-sonnet-4-5`). */
  readonly exampleModel: string;
  /** The AI SDK package that talks to it. */
  readonly sdkPackage: AiSdkPackage;
  /** Environment variables its key is read from, first set wins. */
  readonly keyVariables: readonly string[];
  /**
   * Variables a user may expect this provider to send that it does not (`OPENAI_API_KEY` for an
   * OpenAI-compatible endpoint): set, they earn a warning.
   */
  readonly notSent?: readonly string[];
  /** False when the endpoint may need no key at all (a local server). */
  readonly keyRequired: boolean;
  readonly baseUrl: BaseUrlRule;
  /**
   * How the provider caches the prefix requests share: `breakpoints` — only up to the cache marks a
   * request carries (Anthropic's `cache_control`), which meshflow's loop places; `automatic` — it
   * caches long prefixes by itself and reports the tokens it read (OpenAI's `cached_tokens`).
   */
  readonly promptCache: "breakpoints" | "automatic";
}

/** Declares a provider part, keeping its name a literal type. */
export function defineModelProvider<const Name extends string>(part: ModelProviderPart<Name>): ModelProviderPart<Name> {
  return part;
}
