import { MeshflowError, parseQualifiedName, type ToolDescriptor, UniversalTool } from "@meshflow/core";
import type { ToolMapEntry } from "@meshflow/resolver";

/** A tool map entry read for a harness: a universal or custom tool, or an MCP tool. */
export type ExportTool =
  | { readonly kind: "universal"; readonly key: string; readonly tool: UniversalTool }
  | {
      readonly kind: "mcp";
      readonly key: string;
      readonly server: string;
      readonly name: string;
      readonly descriptor?: ToolDescriptor;
    };

/**
 * Reads one tool map entry: a discovered tool (it has a descriptor) or a qualified `server__tool` key is an
 * MCP tool; any other key is the string form of a universal tool (`bash`) or a custom one (`NotebookEdit`).
 * A key that is neither (an enricher's typo) throws `export_invalid` naming it.
 */
export function exportTool(key: string, entry: ToolMapEntry): ExportTool {
  if (entry.tool) return { kind: "mcp", key, server: entry.tool.server, name: entry.tool.name, descriptor: entry.tool };
  if (UniversalTool.isKind(key)) return { kind: "universal", key, tool: UniversalTool.fromString(key) };
  const qualified = parseQualifiedName(key);
  if (qualified) return { kind: "mcp", key, server: qualified.server, name: qualified.tool };
  try {
    return { kind: "universal", key, tool: UniversalTool.fromString(key) };
  } catch (cause) {
    throw new MeshflowError(
      "export_invalid",
      `tool map entry "${key}" (from ${entry.source}) is neither a server__tool name nor a harness tool name`,
      { cause, details: { key, source: entry.source } },
    );
  }
}

/** True for entries that name an MCP tool (see {@link exportTool}). */
export function isMcpEntry(key: string, entry: ToolMapEntry): boolean {
  return entry.tool !== undefined || (!UniversalTool.isKind(key) && parseQualifiedName(key) !== undefined);
}
