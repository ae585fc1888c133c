export {
  type AliasEntry,
  type AliasFile,
  AliasFileSchema,
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
  CapabilityCatalogFileSchema,
  DEFAULT_CAPABILITIES_FILE,
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
  applyOverride,
  type CapabilityOverride,
  type CapabilityOverrides,
  CapabilityOverridesFileSchema,
  DEFAULT_OVERRIDES_FILE,
  loadCapabilityOverrides,
} from "./capabilities/CapabilityOverrides.js";
export type { Classifier, ClassifierVerdict } from "./capabilities/Classifier.js";
export { type ClassifyOptions, classifyTools } from "./capabilities/classifyTools.js";
export { capabilitiesOfName, createRuleClassifier } from "./capabilities/ruleClassifier.js";
export { toolDefinitionHash } from "./capabilities/toolDefinitionHash.js";
export { computeRepertoire, computeRepertoireMap, type RepertoireContext } from "./enrichers/computeRepertoire.js";
export { type DenyList, denyListEnricher } from "./enrichers/denyListEnricher.js";
export { readOnlyEnricher } from "./enrichers/readOnlyEnricher.js";
export { type SkillsEnricherOptions, skillsEnricher } from "./enrichers/skillsEnricher.js";
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
  RESOLUTION_TIERS,
  type Resolution,
  type ResolutionTier,
  type ResolveOptions,
  type Resolver,
  type ResolverOptions,
  type ResolverStats,
  type ResolverWarning,
} from "./resolve/createResolver.js";
export { rankCandidates } from "./resolve/rankCandidates.js";
export { loadSkillsFolder, type SkillsFolder } from "./skills/loadSkillsFolder.js";
export { resolveSkillTools, type SkillTool } from "./skills/resolveSkillTools.js";
export {
  DEFAULT_SKILLS_DIR,
  findSkill,
  loadSkills,
  parseSkill,
  type Skill,
  SkillFrontmatterSchema,
  skillsForSpecialist,
  withAttachedSkills,
} from "./skills/Skill.js";
