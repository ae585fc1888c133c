/** A tool call the scripted model makes; `id` defaults to `call_<n>` (OpenAI) or `toolu_<n>` (Anthropic). */
export interface ScriptedToolCall {
  name: string;
  input: Record<string, unknown>;
  id?: string;
  /** The Responses API's tool namespace the name belongs to (Codex offers MCP tools as `mcp__<server>`). */
  namespace?: string;
  /**
   * The arguments' JSON text exactly as sent, instead of `JSON.stringify(input)`: for arguments no
   * serializer can produce (nested thousands deep) or that are not JSON at all. The Anthropic
   * non-streaming reply carries `input` as an object and ignores it.
   */
  inputText?: string;
}
