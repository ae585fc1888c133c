import type { ToolAnnotations, ToolDescriptor } from "@meshflow/core";
import {
  type AliasMap,
  type CapabilityIndex,
  type CoverageReport,
  type CoverageSpecialist,
  computeCoverage,
  computeRepertoireMap,
  createResolver,
  type Resolver,
  resolveSkillTools,
  type Skill,
  type SpecialistInfo,
} from "@meshflow/resolver";

/** One tool as the inventory lists it. */
export interface InventoryTool {
  qualifiedName: string;
  server: string;
  tool: string;
  capabilities: readonly string[];
  /** True when an admin override set the capabilities. */
  overridden: boolean;
  annotations: ToolAnnotations;
}

/** A tool in one specialist's repertoire: why it is there and which names reach it. */
export interface InventoryRepertoireTool extends InventoryTool {
  /** `step` (every tool of its servers), `skill:<skill>/<permission>`, or an enricher's label. */
  grantedBy: string;
  /** Names that resolve to it, with their tier: `bare read_file`, `alias fs_read (file)`, `capability x`, … (prefix strips are per specialist). */
  resolvesFrom: string[];
  /** One of its alias entries or named tools resolves to it (counted in `mapped`). */
  mapped: boolean;
}

/** One specialist's section. */
export interface InventorySpecialist {
  name: string;
  description?: string;
  steps: readonly number[];
  /** The skills its repertoire comes from (own, else those that list it); empty: every tool of its servers. */
  skills: readonly string[];
  readOnly: boolean;
  servers: readonly string[];
  /** Domain prefixes the resolver strips from its names (tier 3, with a warning to add an alias). */
  prefixes: readonly string[];
  tools: InventoryRepertoireTool[];
}

/** A tool one skill grants, with the permission that granted it. */
export interface InventorySkillTool extends InventoryTool {
  permission: string;
  /** Names that resolve to it among the skill's tools, for the first specialist the skill lists (else shared names). */
  resolvesFrom: string[];
}

/** One skill's section: what it grants from every discovered tool. */
export interface InventorySkill {
  name: string;
  description: string;
  permissions: readonly string[];
  specialists: readonly string[];
  file: string;
  tools: InventorySkillTool[];
}

/** The whole inventory: coverage plus every specialist's and skill's tools. */
export interface Inventory {
  /** Servers discovered, in config order. */
  servers: readonly string[];
  coverage: CoverageReport;
  /** The deduplicated total row: distinct mapped tools, reachable tools, and the difference. */
  total: { mapped: number; available: number; gap: number };
  specialists: InventorySpecialist[];
  skills: InventorySkill[];
}

/** What {@link buildInventory} works from (the same data as `flow tools coverage`). */
export interface InventoryInput {
  tools: readonly ToolDescriptor[];
  servers: readonly string[];
  specialists: readonly CoverageSpecialist[];
  skills: readonly Skill[];
  index: CapabilityIndex;
  aliases: AliasMap;
  /** How file paths are shown (default: as loaded). */
  shown?: (path: string) => string;
}

function inventoryTool(tool: ToolDescriptor, index: CapabilityIndex): InventoryTool {
  const classification = index.get(tool.qualifiedName);
  return {
    qualifiedName: tool.qualifiedName,
    server: tool.server,
    tool: tool.name,
    capabilities: classification?.capabilities ?? [],
    overridden: classification?.source === "override",
    annotations: tool.annotations,
  };
}

/** The names that resolve to `tool` in `repertoire`, each with the tier that resolves it. */
function resolvesFrom(
  tool: ToolDescriptor,
  repertoire: readonly ToolDescriptor[],
  specialist: SpecialistInfo,
  resolver: Resolver,
  input: InventoryInput,
): string[] {
  const found: string[] = [];
  const reaches = (name: string) => {
    const result = resolver.tryResolve(name, repertoire, { specialist: specialist.name });
    return "qualifiedName" in result && result.qualifiedName === tool.qualifiedName ? result : undefined;
  };
  found.push(reaches(tool.name) ? `bare \`${tool.name}\`` : `bare \`${tool.name}\` is ambiguous: qualify it`);
  const file = input.shown ?? ((path: string) => path);
  const own = input.aliases.bySpecialist.get(specialist.name);
  for (const entry of [...(own?.values() ?? []), ...input.aliases.shared.values()]) {
    const hit = reaches(entry.from);
    if (hit?.tier === "alias") found.push(`alias \`${entry.from}\` (${file(entry.file)})`);
  }
  for (const name of specialist.tools ?? []) {
    const hit = reaches(name);
    if (hit && name !== tool.name && name !== tool.qualifiedName && !own?.has(name) && !input.aliases.shared.has(name))
      found.push(`named \`${name}\` (${hit.tier})`);
  }
  for (const capability of input.index.capabilitiesOf(tool.qualifiedName))
    if (reaches(capability)?.tier === "capability") found.push(`capability \`${capability}\``);
  return found;
}

/**
 * The tool inventory from live discovery: {@link computeCoverage} over the same specialists as
 * `flow tools coverage`, each specialist's repertoire with provenance and the names that reach each tool,
 * and each skill's grant over every discovered tool.
 */
export function buildInventory(input: InventoryInput): Inventory {
  const resolver = createResolver({ aliases: input.aliases, capabilities: input.index });
  const coverage = computeCoverage({
    tools: input.tools,
    specialists: input.specialists,
    skills: input.skills,
    index: input.index,
    aliases: input.aliases,
  });
  const specialists = input.specialists.map(({ specialist, servers }, i): InventorySpecialist => {
    const universe = input.tools.filter((t) => servers.includes(t.server));
    const map = computeRepertoireMap(universe, specialist, { skills: input.skills, index: input.index });
    const repertoire = universe.filter((t) => map.has(t.qualifiedName));
    const mapped = new Set(coverage.specialists[i]?.mappedTools ?? []);
    return {
      name: specialist.name,
      ...(specialist.description ? { description: specialist.description } : {}),
      steps: specialist.steps ?? [],
      skills: specialist.skills ?? [],
      readOnly: specialist.readOnly === true,
      servers,
      prefixes: [
        ...new Set([
          ...(input.aliases.prefixesBySpecialist.get(specialist.name) ?? []),
          ...input.aliases.sharedPrefixes,
        ]),
      ],
      tools: repertoire.map((tool) => ({
        ...inventoryTool(tool, input.index),
        grantedBy: map.get(tool.qualifiedName)?.source ?? "step",
        resolvesFrom: resolvesFrom(tool, repertoire, specialist, resolver, input),
        mapped: mapped.has(tool.qualifiedName),
      })),
    };
  });
  const skills = input.skills.map((skill): InventorySkill => {
    const granted = resolveSkillTools(skill, input.tools, input.index);
    const repertoire = granted.map((g) => g.tool);
    // Resolution depends on whose alias pack applies: the skill's first specialist, else only shared names.
    const owner: SpecialistInfo = { name: skill.specialists?.[0] ?? "" };
    return {
      name: skill.name,
      description: skill.description,
      permissions: skill.permissions,
      specialists: skill.specialists ?? [],
      file: input.shown ? input.shown(skill.file) : skill.file,
      tools: granted.map((g) => ({
        ...inventoryTool(g.tool, input.index),
        permission: g.permission,
        resolvesFrom: resolvesFrom(g.tool, repertoire, owner, resolver, input),
      })),
    };
  });
  const mappedAll = new Set(coverage.specialists.flatMap((s) => s.mappedTools));
  if (input.shown) {
    const shown = input.shown;
    coverage.deadAliases = coverage.deadAliases.map((a) => ({ ...a, file: shown(a.file) }));
  }
  return {
    servers: input.servers,
    coverage,
    total: { mapped: mappedAll.size, available: coverage.reachable, gap: coverage.reachable - mappedAll.size },
    specialists,
    skills,
  };
}
