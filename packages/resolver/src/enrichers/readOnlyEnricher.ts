import type { ToolEnricher } from "./ToolEnricher.js";

/**
 * For specialists marked `readOnly`, drops every tool not annotated `readOnlyHint: true` (including
 * entries without a descriptor, whose behaviour is unknown). Other specialists' maps pass unchanged.
 */
export function readOnlyEnricher(): ToolEnricher {
  return (_harness, specialist, toolMap) => {
    if (!specialist.readOnly) return toolMap;
    return new Map([...toolMap].filter(([, entry]) => entry.tool?.annotations.readOnlyHint === true));
  };
}
