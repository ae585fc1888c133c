import type { ToolDescriptor } from "@meshflow/core";
import { UniversalTool } from "@meshflow/core";
import {
  type CapabilityIndex,
  computeRepertoireMap,
  type Skill,
  type ToolMap,
  type ToolMapEntry,
  withAttachedSkills,
} from "@meshflow/resolver";
import type { ExportSpecialist } from "./ExportSpecialist.js";

/** What a specialist's repertoire is computed from: the discovered tools, the skills and their classification. */
export interface ToolUniverse {
  tools: readonly ToolDescriptor[];
  skills: readonly Skill[];
  index: CapabilityIndex;
}

/**
 * The specialist's MCP repertoire over `servers` (default: every discovered tool), by the runtime's rules:
 * its own skills, else the skills that list it; then the read-only rule. Entries keep their source.
 */
export function repertoireMap(
  specialist: ExportSpecialist,
  universe: ToolUniverse,
  servers?: readonly string[],
): ToolMap {
  const tools = servers ? universe.tools.filter((t) => servers.includes(t.server)) : universe.tools;
  return computeRepertoireMap(tools, withAttachedSkills(specialist, universe.skills), {
    skills: universe.skills,
    index: universe.index,
  });
}

/**
 * The base tool map of an exported agent, before the harness's enrichers: the universal tools its
 * definition declares (source `harnessTools`), then its MCP repertoire in discovery order.
 */
export function baseToolMap(specialist: ExportSpecialist, repertoire: ToolMap): ToolMap {
  const map = new Map<string, ToolMapEntry>();
  for (const tool of specialist.harnessTools ?? []) {
    const key = UniversalTool.toString(tool);
    map.set(key, { qualifiedName: key, source: "harnessTools" });
  }
  for (const [key, entry] of repertoire) map.set(key, entry);
  return map;
}
