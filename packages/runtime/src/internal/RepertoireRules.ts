import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ToolDescriptor } from "@meshflow/core";
import {
  type AliasMap,
  buildCapabilityCatalog,
  type CapabilityCatalog,
  CapabilityIndex,
  type CapabilityOverrides,
  classifyTools,
  computeRepertoire,
  createResolver,
  EMPTY_ALIAS_MAP,
  FileClassificationCache,
  loadAliasMaps,
  loadCapabilityCatalog,
  loadCapabilityOverrides,
  loadSkills,
  type Resolver,
  type ResolverWarning,
  type Skill,
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

const NO_CAPABILITIES: CapabilityCatalog = buildCapabilityCatalog({ version: 1, capabilities: {} });

/**
 * The resolver side of a run: skills, capability index, alias maps and enrichers, turned into step
 * repertoires (`computeRepertoire`) and name resolution (`createResolver`). Without a skills folder
 * every specialist gets all of its step's tools (the read-only rule still applies) and names resolve
 * by the exact tier only.
 */
export class RepertoireRules {
  readonly #options: RepertoireRulesOptions;
  readonly #catalog: CapabilityCatalog;
  readonly #overrides: CapabilityOverrides | undefined;
  readonly #skills: Skill[];
  readonly #aliases: AliasMap;
  #index: CapabilityIndex;
  readonly #known = new Map<string, ToolDescriptor>();
  #resolver: Resolver;

  constructor(options: RepertoireRulesOptions = {}) {
    this.#options = options;
    const dir = options.skillsDir;
    if (dir) {
      const catalogFile = join(dir, "capabilities.yaml");
      this.#catalog = existsSync(catalogFile) ? loadCapabilityCatalog(catalogFile) : NO_CAPABILITIES;
      this.#overrides = loadCapabilityOverrides(join(dir, "capability-overrides.yaml"), this.#catalog, {
        optional: true,
      });
      this.#skills = loadSkills(dir, { catalog: this.#catalog });
      const aliasDir = join(dir, "aliases");
      this.#aliases = existsSync(aliasDir) ? loadAliasMaps(aliasDir) : EMPTY_ALIAS_MAP;
    } else {
      this.#catalog = NO_CAPABILITIES;
      this.#overrides = undefined;
      this.#skills = [];
      this.#aliases = EMPTY_ALIAS_MAP;
    }
    this.#index = new CapabilityIndex(this.#catalog, []);
    this.#resolver = this.#makeResolver();
  }

  #makeResolver(): Resolver {
    return createResolver({
      aliases: this.#aliases,
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
        catalog: this.#catalog,
        cache,
        ...(this.#overrides ? { overrides: this.#overrides } : {}),
      });
    } finally {
      await cache.close();
    }
    this.#resolver = this.#makeResolver();
  }

  repertoire(stepTools: readonly ToolDescriptor[], specialist: SpecialistInfo): ToolDescriptor[] {
    return computeRepertoire(stepTools, withAttachedSkills(specialist, this.#skills), {
      skills: this.#skills,
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
