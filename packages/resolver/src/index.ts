export {
  type AliasEntry,
  type AliasFile,
  type AliasMap,
  EMPTY_ALIAS_MAP,
  loadAliasMaps,
  mergeAliasFiles,
} from "./aliases/AliasMap.js";
export {
  type CachedClassification,
  type ClassificationCache,
  isCachedClassification,
} from "./cache/ClassificationCache.js";
export { DEFAULT_CACHE_FILE, FileClassificationCache } from "./cache/FileClassificationCache.js";
export {
  type AnnotationRequirement,
  buildCapabilityCatalog,
  type Capability,
  type CapabilityCatalog,
  EMPTY_CAPABILITY_CATALOG,
  loadCapabilityCatalog,
} from "./capabilities/CapabilityCatalog.js";
export {
  CapabilityIndex,
  type ClassificationSource,
  type ClassificationStats,
  type ToolClassification,
} from "./capabilities/CapabilityIndex.js";
export {
  type CapabilityOverride,
  type CapabilityOverrides,
  CapabilityOverridesFileSchema,
  loadCapabilityOverrides,
} from "./capabilities/CapabilityOverrides.js";
export type { Classifier, ClassifierVerdict } from "./capabilities/Classifier.js";
export { type ClassifyOptions, classifyTools } from "./capabilities/classifyTools.js";

export { computeRepertoire, computeRepertoireMap, type RepertoireContext } from "./enrichers/computeRepertoire.js";
export { type DenyList, denyListEnricher } from "./enrichers/denyListEnricher.js";

export type { SkillsEnricherOptions } from "./enrichers/skillsEnricher.js";
export {
  composeEnrichers,
  type SpecialistInfo,
  type ToolEnricher,
  type ToolMap,
  type ToolMapEntry,
  toolMapOf,
} from "./enrichers/ToolEnricher.js";
export {
  type CoverageInput,
  type CoverageReport,
  type CoverageSpecialist,
  computeCoverage,
  type SpecialistCoverage,
  type UnreachableTool,
  type UnresolvedName,
} from "./reachability/computeCoverage.js";
export {
  type CoverageSpecialistsInput,
  coverageHeadline,
  coverageSpecialists,
  prdServers,
} from "./reachability/coverageSpecialists.js";
export {
  createResolver,
  type Resolution,
  type ResolutionTier,
  type ResolveOptions,
  type Resolver,
  type ResolverOptions,
  type ResolverStats,
  type ResolverWarning,
} from "./resolve/createResolver.js";

export { loadSkillsFolder, type SkillsFolder } from "./skills/loadSkillsFolder.js";
export { resolveSkillTools, type SkillTool } from "./skills/resolveSkillTools.js";
export {
  findSkill,
  loadSkills,
  type Skill,
  skillsForSpecialist,
  withAttachedSkills,
} from "./skills/Skill.js";
