import { parseQualifiedName, UniversalTool } from "@meshflow/core";
import type { ToolEnricher, ToolMapEntry } from "@meshflow/resolver";
import { isMcpEntry } from "../model/exportTool.js";

/** The tool map key of a tool to add: a universal or custom tool's string form, or a qualified MCP name as given. */
function keyOf(tool: UniversalTool | string): string {
  if (typeof tool !== "string") return UniversalTool.toString(tool);
  if (!UniversalTool.isKind(tool) && parseQualifiedName(tool)) return tool;
  return UniversalTool.toString(UniversalTool.fromString(tool));
}

/**
 * Adds tools to every specialist's map: universal or custom harness tools (values or string forms), or MCP
 * tools by qualified name (`github__get_issue`: a server the harness has but meshflow does not discover).
 * Entries already there keep theirs. The source is `label`.
 *
 * @example
 * addToolsEnricher(["todo", UniversalTool.webfetch, "github__get_issue"])
 */
export function addToolsEnricher(tools: readonly (UniversalTool | string)[], label = "enricher:add"): ToolEnricher {
  const keys = tools.map(keyOf);
  return (_harness, _specialist, toolMap) => {
    const next = new Map(toolMap);
    for (const key of keys) if (!next.has(key)) next.set(key, { qualifiedName: key, source: label });
    return next;
  };
}

/** Drops every MCP tool: for a harness (or a setup) without the MCP servers. Universal tools stay. */
export function stripMcpEnricher(): ToolEnricher {
  return (_harness, _specialist, toolMap) => new Map([...toolMap].filter(([key, entry]) => !isMcpEntry(key, entry)));
}

function keepsReadOnly(key: string, entry: ToolMapEntry): boolean {
  if (isMcpEntry(key, entry)) return entry.tool?.annotations.readOnlyHint === true;
  return UniversalTool.isReadOnly(UniversalTool.fromString(key));
}

/**
 * For specialists marked `readOnly`: keeps MCP tools annotated `readOnlyHint: true` and the universal tools
 * that cannot write (`read`, `grep`, `glob`, `webfetch`, `websearch`, `todo`); drops everything else, custom
 * tools and MCP entries without a descriptor included (their behaviour is unknown). Other maps pass unchanged.
 */
export function harnessReadOnlyEnricher(): ToolEnricher {
  return (_harness, specialist, toolMap) => {
    if (!specialist.readOnly) return toolMap;
    return new Map([...toolMap].filter(([key, entry]) => keepsReadOnly(key, entry)));
  };
}

/** Runs `enricher` only for the named specialists; the others' maps pass unchanged. */
export function forSpecialists(names: readonly string[], enricher: ToolEnricher): ToolEnricher {
  const only = new Set(names);
  return (harness, specialist, toolMap) =>
    only.has(specialist.name) ? enricher(harness, specialist, toolMap) : toolMap;
}
