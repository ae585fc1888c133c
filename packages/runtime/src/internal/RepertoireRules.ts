import type { ToolDescriptor } from "@meshflow/core";
import {
  CapabilityIndex,
  classifyTools,
  computeRepertoire,
  createResolver,
  EMPTY_ALIAS_MAP,
  EMPTY_CAPABILITY_CATALOG,
  FileClassificationCache,
  loadSkillsFolder,
  type Resolver,
  type ResolverWarning,
  type SkillsFolder,
  type ToolEnricher,
  withAttachedSkills,
} from "@meshflow/resolver";
import type { SpecialistInfo } from "../specialists/defineSpecialist.js";
import type { ToolResolution } from "../ToolPlane.js";

/** Where the repertoire rules come from. */
export interface RepertoireRulesOptions {
  /** The skills folder (`capabilities.yaml`, `capability-overrides.yaml`, `<skill>/SKILL.md`, `aliases/`). */
  skillsDir?: string;
  /** Classification cache file (default `.flow/cache/classifications.json`). */
  cacheFile?: string;
  /** Enrichers run after the skills, before the read-only rule. */
  enrichers?: readonly ToolEnricher[];
  onWarning?: (warning: ResolverWarning) => void;
}

/**
 * The resolver side of a run: skills, capability index, alias maps and enrichers, turned into step
 * repertoires (`computeRepertoire`) and name resolution (`createResolver`). Without a skills folder
 * every specialist gets all of its step's tools (the read-only rule still applies) and names resolve
 * by the exact tier only.
 */
export class RepertoireRules {
  readonly #options: RepertoireRulesOptions;
  readonly #folder: SkillsFolder;
  #index: CapabilityIndex;
  readonly #known = new Map<string, ToolDescriptor>();
  #resolver: Resolver;

  constructor(options: RepertoireRulesOptions = {}) {
    this.#options = options;
    this.#folder = options.skillsDir
      ? loadSkillsFolder(options.skillsDir, { optionalCatalog: true })
      : { catalog: EMPTY_CAPABILITY_CATALOG, overrides: undefined, skills: [], aliases: EMPTY_ALIAS_MAP };
    this.#index = new CapabilityIndex(this.#folder.catalog, []);
    this.#resolver = this.#makeResolver();
  }

  #makeResolver(): Resolver {
    return createResolver({
      aliases: this.#folder.aliases,
      capabilities: this.#index,
      ...(this.#options.onWarning ? { onWarning: this.#options.onWarning } : {}),
    });
  }

  /** Classifies newly discovered tools (through the cache) so skills and the capability tier can use them. */
  async classify(tools: readonly ToolDescriptor[]): Promise<void> {
    if (!this.#options.skillsDir) return;
    const fresh = tools.filter((t) => !this.#known.has(t.qualifiedName));
    if (!fresh.length) return;
    for (const t of fresh) this.#known.set(t.qualifiedName, t);
    const cache = new FileClassificationCache(this.#options.cacheFile);
    try {
      this.#index = await classifyTools([...this.#known.values()], {
        catalog: this.#folder.catalog,
        cache,
        ...(this.#folder.overrides ? { overrides: this.#folder.overrides } : {}),
      });
    } finally {
      await cache.close();
    }
    this.#resolver = this.#makeResolver();
  }

  repertoire(stepTools: readonly ToolDescriptor[], specialist: SpecialistInfo): ToolDescriptor[] {
    return computeRepertoire(stepTools, withAttachedSkills(specialist, this.#folder.skills), {
      skills: this.#folder.skills,
      index: this.#index,
      ...(this.#options.enrichers ? { enrichers: [...this.#options.enrichers] } : {}),
    });
  }

  /** A classified tool's capability ids (empty when unclassified or without a skills folder). */
  capabilitiesOf(qualifiedName: string): readonly string[] {
    return this.#index.capabilitiesOf(qualifiedName);
  }

  resolve(name: string, tools: readonly ToolDescriptor[], specialist: string): ToolResolution {
    const r = this.#resolver.resolve(name, tools, { specialist });
    return { qualifiedName: r.qualifiedName, tier: r.tier, warnings: r.warnings };
  }
}
