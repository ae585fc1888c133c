/** Token usage the scripted model reports. */
export interface ScriptedUsage {
  /** Every input token, those read from and written to the prompt cache included. */
  inputTokens: number;
  outputTokens: number;
  /** Input tokens read from the prompt cache (Anthropic `cache_read_input_tokens`, OpenAI `cached_tokens`). */
  cacheReadTokens?: number;
  /** Input tokens written to the prompt cache (Anthropic `cache_creation_input_tokens`). */
  cacheWriteTokens?: number;
}
