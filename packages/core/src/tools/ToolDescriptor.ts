/** MCP tool annotations: hints a client may use, never guarantees. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** A tool discovered on an MCP server, known by its qualified name `<server>__<tool>`. */
export interface ToolDescriptor {
  /** `<server>__<tool>`, unique across all servers. */
  qualifiedName: string;
  /** The MCP server (a key of the MCP config). */
  server: string;
  /** The tool's own name on its server. */
  name: string;
  title?: string;
  description: string;
  /** The tool's input JSON Schema, as the server sent it. */
  inputSchema: Record<string, unknown>;
  annotations: ToolAnnotations;
  /**
   * The tool's `_meta`, as the server sent it (absent when it sent none): facts for clients beyond the
   * MCP fields, under namespaced keys, e.g. `"meshflow/allow"` (see `statedAllowlist`).
   */
  meta?: Readonly<Record<string, unknown>>;
}

/** Separator between server and tool in a qualified name. */
const QUALIFIED_SEPARATOR = "__";

/** Builds `<server>__<tool>`. */
export function qualifyToolName(server: string, tool: string): string {
  return `${server}${QUALIFIED_SEPARATOR}${tool}`;
}

/**
 * Splits a qualified name at its first `__` (server names never contain `__`; tool names may).
 * Returns undefined for a bare name.
 */
export function parseQualifiedName(name: string): { server: string; tool: string } | undefined {
  const at = name.indexOf(QUALIFIED_SEPARATOR);
  if (at <= 0 || at + QUALIFIED_SEPARATOR.length >= name.length) return undefined;
  return { server: name.slice(0, at), tool: name.slice(at + QUALIFIED_SEPARATOR.length) };
}
