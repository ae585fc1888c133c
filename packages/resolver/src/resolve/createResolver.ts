import { isMeshflowError, MeshflowError, type ToolDescriptor } from "@meshflow/core";
import { type AliasEntry, type AliasMap, EMPTY_ALIAS_MAP } from "../aliases/AliasMap.js";
import type { CapabilityIndex } from "../capabilities/CapabilityIndex.js";
import { type RepertoireIndex, repertoireIndex } from "./RepertoireIndex.js";
import { rankCandidates } from "./rankCandidates.js";
import type { Pack, ResolutionTier, TierQuery } from "./tiers/Tier.js";
import { TIERS } from "./tiers/tiers.js";

export type { ResolutionTier };

/** Which real tool a name means, and how that was decided (provenance). */
export interface Resolution {
  /** The name as asked for. */
  input: string;
  qualifiedName: string;
  server: string;
  tool: string;
  tier: ResolutionTier;
  /** What decided it beyond the tier: the alias file, the stripped prefix, the capability. */
  via?: string;
  warnings: string[];
  /** The resolved tool's descriptor (schema, annotations). */
  descriptor: ToolDescriptor;
}

/** A warning event of the resolver: a prefix strip (add an alias entry) or an alias whose target is absent. */
export interface ResolverWarning {
  kind: "prefix_strip" | "alias_target_missing";
  input: string;
  specialist: string | undefined;
  message: string;
  /** The tool it resolved to (prefix strips). */
  qualifiedName?: string;
  /** The prefix that was stripped. */
  prefix?: string;
  /** How often this input has produced this warning kind in this resolver. */
  count: number;
}

/** Counters of a resolver since it was created. */
export interface ResolverStats {
  byTier: Record<ResolutionTier, number>;
  notFound: number;
  ambiguous: number;
  /** Prefix strips per input name: each is an alias entry worth adding. */
  prefixStrips: Record<string, number>;
}

/** Options of {@link Resolver.resolve}. */
export interface ResolveOptions {
  /** The specialist asking: its alias pack and prefixes apply before the shared ones. */
  specialist?: string | undefined;
  /**
   * Rank "did you mean" candidates when nothing resolves (default true). Bulk callers that only need to
   * know whether a name resolves (coverage) turn it off: ranking is the one costly step.
   */
  suggestions?: boolean;
}

/** Decides which real tool of a repertoire a name means. */
export interface Resolver {
  /**
   * Resolves `name` over `repertoire`: exact → alias map → prefix strip → capability. Throws
   * `tool_not_found` (details.candidates: the 5 most similar qualified names) or `tool_ambiguous`
   * (details.candidates: the tied tools). Repertoire arrays are indexed once and must not be mutated.
   */
  resolve(name: string, repertoire: readonly ToolDescriptor[], options?: ResolveOptions): Resolution;
  /**
   * Like {@link Resolver.resolve} without throwing and without ranking candidates: the resolution, or the
   * failure's code and message. For bulk checks (coverage) where misses are expected.
   */
  tryResolve(
    name: string,
    repertoire: readonly ToolDescriptor[],
    options?: ResolveOptions,
  ): Resolution | ResolveFailure;
  /** Counters since creation. */
  stats(): ResolverStats;
}

/** Why {@link Resolver.tryResolve} found no tool. */
interface ResolveFailure {
  code: "tool_not_found" | "tool_ambiguous";
  input: string;
  message: string;
  /** The tied tools of an ambiguity (no ranking is done for misses). */
  candidates: string[];
}

/** Marks "nothing matched at any tier" inside the resolver, so misses need no exception. */
const MISS = Symbol("miss");

/** Options of {@link createResolver}. */
export interface ResolverOptions {
  aliases?: AliasMap;
  /** Domain prefixes stripped by every specialist (in addition to the alias files' prefixes). */
  prefixes?: readonly string[];
  /** Tool capabilities, for the capability tier (skipped without it). */
  capabilities?: CapabilityIndex;
  onWarning?: (warning: ResolverWarning) => void;
}

function list(tools: readonly ToolDescriptor[]): string {
  return tools.map((t) => t.qualifiedName).join(", ");
}

function ambiguous(input: string, tier: ResolutionTier, tools: readonly ToolDescriptor[], how: string): MeshflowError {
  const candidates = tools.map((t) => t.qualifiedName);
  return new MeshflowError(
    "tool_ambiguous",
    `tool "${input}" is ambiguous at the ${tier} tier (${how}): ${list(tools)}; ` +
      "use a qualified name (server__tool) or add an alias entry",
    { details: { input, tier, candidates } },
  );
}

/**
 * Creates the resolver every tool call goes through: the {@link TIERS} in order (exact and alias are map
 * lookups over a per-repertoire index; prefix tries each configured prefix; capability looks up the
 * name's capability), the first that finds the tool decides.
 *
 * @example
 * const resolver = createResolver({ aliases: loadAliasMaps("skills/aliases"), capabilities: index });
 * resolver.resolve("fs_read_file", repertoire, { specialist: "development-agent" });
 * // { qualifiedName: "filesystem__read_file", tier: "prefix", warnings: ["… add an alias entry …"], … }
 */
export function createResolver(options: ResolverOptions = {}): Resolver {
  const aliases = options.aliases ?? EMPTY_ALIAS_MAP;
  const globalPrefixes = [...new Set([...(options.prefixes ?? []), ...aliases.sharedPrefixes])];
  const shared: Pack = { aliases: aliases.shared, prefixes: globalPrefixes };
  const packs = new Map<string, Pack>();
  for (const specialist of new Set([...aliases.bySpecialist.keys(), ...aliases.prefixesBySpecialist.keys()])) {
    const own = aliases.bySpecialist.get(specialist) ?? new Map<string, AliasEntry>();
    packs.set(specialist, {
      // the specialist's own entries win over shared ones
      aliases: new Map([...aliases.shared, ...own]),
      prefixes: [...new Set([...(aliases.prefixesBySpecialist.get(specialist) ?? []), ...globalPrefixes])],
    });
  }
  const capabilities = options.capabilities;
  const counts: ResolverStats = {
    byTier: { exact: 0, alias: 0, prefix: 0, capability: 0 },
    notFound: 0,
    ambiguous: 0,
    prefixStrips: {},
  };
  const warningCounts = new Map<string, number>();

  function warn(warning: Omit<ResolverWarning, "count">): string {
    const key = `${warning.kind}\u0000${warning.specialist ?? ""}\u0000${warning.input}`;
    const count = (warningCounts.get(key) ?? 0) + 1;
    warningCounts.set(key, count);
    options.onWarning?.({ ...warning, count });
    return warning.message;
  }

  function found(
    input: string,
    tool: ToolDescriptor,
    tier: ResolutionTier,
    warnings: string[],
    via?: string,
  ): Resolution {
    counts.byTier[tier]++;
    const resolution: Resolution = {
      input,
      qualifiedName: tool.qualifiedName,
      server: tool.server,
      tool: tool.name,
      tier,
      warnings,
      descriptor: tool,
    };
    if (via !== undefined) resolution.via = via;
    return resolution;
  }

  /** The query the tiers see for one name (their helpers count ambiguities and warnings here). */
  function query(name: string, index: RepertoireIndex, pack: Pack, specialist: string | undefined): TierQuery {
    const tie = (tier: ResolutionTier, tools: readonly ToolDescriptor[], how: string): never => {
      counts.ambiguous++;
      throw ambiguous(name, tier, tools, how);
    };
    return {
      name,
      index,
      pack,
      specialist,
      capabilities,
      warnings: [],
      single: (lookup, tier, how) =>
        lookup === undefined || !Array.isArray(lookup)
          ? (lookup as ToolDescriptor | undefined)
          : tie(tier, lookup, how),
      ambiguous: tie,
      warn: (warning) => warn({ ...warning, input: name, specialist }),
    };
  }

  function notFound(
    name: string,
    index: RepertoireIndex,
    pack: Pack,
    specialist: string | undefined,
    warnings: string[],
    suggestions: boolean,
  ) {
    counts.notFound++;
    const stripped = pack.prefixes.filter((p) => name.startsWith(p)).map((p) => name.slice(p.length));
    const candidates = suggestions ? rankCandidates(name, index.tools, 5, stripped).map((t) => t.qualifiedName) : [];
    const servers = index.servers();
    const where = index.tools.length
      ? `among the ${index.tools.length} tools of ${servers.join(", ")}`
      : "in an empty repertoire";
    const hint = candidates.length ? `; did you mean ${candidates.map((c) => `"${c}"`).join(", ")}?` : "";
    return new MeshflowError(
      "tool_not_found",
      `tool "${name}" not found ${where}${specialist ? ` (specialist ${specialist})` : ""}` +
        ` — tried exact, alias, prefix${capabilities ? ", capability" : ""}${hint}`,
      { details: { input: name, specialist, candidates, servers, warnings } },
    );
  }

  function attempt(
    name: string,
    repertoire: readonly ToolDescriptor[],
    resolveOptions: ResolveOptions | undefined,
  ): Resolution | { miss: typeof MISS; index: RepertoireIndex; pack: Pack; warnings: string[] } {
    const specialist = resolveOptions?.specialist;
    const pack = (specialist !== undefined && packs.get(specialist)) || shared;
    const q = query(name, repertoireIndex(repertoire), pack, specialist);
    for (const tier of TIERS) {
      const hit = tier.resolve(q);
      if (!hit) continue;
      if (tier.name === "prefix") counts.prefixStrips[name] = (counts.prefixStrips[name] ?? 0) + 1;
      return found(name, hit.tool, tier.name, q.warnings, hit.via);
    }
    return { miss: MISS, index: q.index, pack, warnings: q.warnings };
  }

  return {
    resolve(name, repertoire, resolveOptions) {
      const result = attempt(name, repertoire, resolveOptions);
      if (!("miss" in result)) return result;
      const { index, pack, warnings } = result;
      throw notFound(name, index, pack, resolveOptions?.specialist, warnings, resolveOptions?.suggestions !== false);
    },
    tryResolve(name, repertoire, resolveOptions) {
      try {
        const result = attempt(name, repertoire, resolveOptions);
        if (!("miss" in result)) return result;
        counts.notFound++;
        return { code: "tool_not_found", input: name, message: `tool "${name}" not found`, candidates: [] };
      } catch (error) {
        if (!isMeshflowError(error) || error.code !== "tool_ambiguous") throw error;
        return {
          code: "tool_ambiguous",
          input: name,
          message: error.message,
          candidates: error.details.candidates as string[],
        };
      }
    },
    stats: () => structuredClone(counts),
  };
}
