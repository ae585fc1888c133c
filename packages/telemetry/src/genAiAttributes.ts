// OpenTelemetry GenAI semantic-convention attribute names (gen-ai-spans, v1.37+), and the older
// `gen_ai.system`, still read by many backends, which v1.37 renamed to `gen_ai.provider.name`.

/** `gen_ai.operation.name`: `chat` for a model turn, `execute_tool` for a tool call. */
export const GEN_AI_OPERATION_NAME = "gen_ai.operation.name";
/** `gen_ai.provider.name`: the model provider (`anthropic`, `openai`, …). */
export const GEN_AI_PROVIDER_NAME = "gen_ai.provider.name";
/** `gen_ai.system`: the provider, under its name before semantic conventions v1.37. */
export const GEN_AI_SYSTEM = "gen_ai.system";
/** `gen_ai.request.model`: the model asked. */
export const GEN_AI_REQUEST_MODEL = "gen_ai.request.model";
/** `gen_ai.usage.input_tokens`. */
export const GEN_AI_USAGE_INPUT_TOKENS = "gen_ai.usage.input_tokens";
/** `gen_ai.usage.output_tokens`. */
export const GEN_AI_USAGE_OUTPUT_TOKENS = "gen_ai.usage.output_tokens";
/** `gen_ai.usage.cache_read.input_tokens`: input tokens served from the provider's prompt cache (within input_tokens). */
export const GEN_AI_USAGE_CACHE_READ = "gen_ai.usage.cache_read.input_tokens";
/** `gen_ai.usage.cache_creation.input_tokens`: input tokens written to the provider's prompt cache (within input_tokens). */
export const GEN_AI_USAGE_CACHE_WRITE = "gen_ai.usage.cache_creation.input_tokens";
/** `gen_ai.tool.name`: the tool a span executes. */
export const GEN_AI_TOOL_NAME = "gen_ai.tool.name";
