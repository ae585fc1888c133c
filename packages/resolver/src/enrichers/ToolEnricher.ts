import type { ToolDescriptor } from "@meshflow/core";

/** What enrichers know about the specialist a tool map is for. */
export interface SpecialistInfo {
  name: string;
  description?: string;
  /** The PRD steps it handles. */
  steps?: readonly number[];
  /** Skills it declares: it then gets only the tools they grant. */
  skills?: readonly string[];
  /** Read-only specialists only get tools annotated `readOnlyHint: true`. */
  readOnly?: boolean;
  /** Tool names its think() uses (bare, qualified or aliased), for coverage reports. */
  tools?: readonly string[];
}

/** One entry of a tool map: a discovered tool (or a universal tool name without descriptor) and why it is there. */
export interface ToolMapEntry {
  qualifiedName: string;
  tool?: ToolDescriptor;
  /** Who put it there: `step` (the step's servers), `skill:<skill>/<permission>`, or an enricher's label. */
  source: string;
}

/** Tool map keyed by qualified name (or universal tool name). Enrichers return new maps, never mutate. */
export type ToolMap = ReadonlyMap<string, ToolMapEntry>;

/**
 * A pure function from (harness, specialist, tool map) to a new tool map. `harness` names where the map is
 * used (`meshflow` for runs, or an MCP client's name for `flow serve`).
 */
export type ToolEnricher = (harness: string, specialist: SpecialistInfo, toolMap: ToolMap) => ToolMap;

/**
 * Applies enrichers left to right: the output of one is the input of the next.
 *
 * @example
 * const enrich = composeEnrichers([skillsEnricher(ctx), denyListEnricher(["*delete*"]), readOnlyEnricher()]);
 */
export function composeEnrichers(enrichers: readonly ToolEnricher[]): ToolEnricher {
  const list = [...enrichers];
  return (harness, specialist, toolMap) => list.reduce((map, enrich) => enrich(harness, specialist, map), toolMap);
}

/** A tool map of `tools`, each with `source`. */
export function toolMapOf(tools: readonly ToolDescriptor[], source = "step"): ToolMap {
  return new Map(tools.map((tool) => [tool.qualifiedName, { qualifiedName: tool.qualifiedName, tool, source }]));
}
