import type { ToolDescriptor } from "@meshflow/core";
import type { CapabilityIndex } from "../capabilities/CapabilityIndex.js";
import type { Skill } from "../skills/Skill.js";
import { readOnlyEnricher } from "./readOnlyEnricher.js";
import { skillsEnricher } from "./skillsEnricher.js";
import { composeEnrichers, type SpecialistInfo, type ToolEnricher, type ToolMap, toolMapOf } from "./ToolEnricher.js";

/** What {@link computeRepertoire} needs besides the step's tools and the specialist. */
export interface RepertoireContext {
  skills: readonly Skill[];
  index: CapabilityIndex;
  /** Run after the skills enricher, in order. */
  enrichers?: readonly ToolEnricher[];
  /** Default `meshflow`. */
  harness?: string;
}

const finalReadOnly = readOnlyEnricher();

/**
 * The tool map of a specialist for one step: the step's servers' tools are the universe; a specialist that
 * declares skills starts empty and gets what its skills grant, one without skills gets every tool; then the
 * given enrichers run in order; last the read-only rule, so no enricher can hand a write tool to a read-only
 * specialist. Only tools of the universe survive.
 */
export function computeRepertoireMap(
  stepTools: readonly ToolDescriptor[],
  specialist: SpecialistInfo,
  ctx: RepertoireContext,
): ToolMap {
  const base = specialist.skills?.length ? new Map() : toolMapOf(stepTools);
  const enrich = composeEnrichers([
    skillsEnricher({ skills: ctx.skills, index: ctx.index, tools: stepTools }),
    ...(ctx.enrichers ?? []),
    finalReadOnly,
  ]);
  const map = enrich(ctx.harness ?? "meshflow", specialist, base);
  const universe = new Set(stepTools.map((t) => t.qualifiedName));
  return new Map([...map].filter(([key]) => universe.has(key)));
}

/**
 * The repertoire (tools a specialist may call in one step), in the step's tool order. See
 * {@link computeRepertoireMap} for the rules.
 *
 * @example
 * const repertoire = computeRepertoire(stepTools, { name: "security-agent", skills: ["security-audit"], readOnly: true },
 *   { skills, index });
 */
export function computeRepertoire(
  stepTools: readonly ToolDescriptor[],
  specialist: SpecialistInfo,
  ctx: RepertoireContext,
): ToolDescriptor[] {
  const map = computeRepertoireMap(stepTools, specialist, ctx);
  return stepTools.filter((tool) => map.has(tool.qualifiedName));
}
