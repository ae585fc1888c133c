import { isMeshflowError, MeshflowError, type ToolDescriptor } from "@meshflow/core";
import { type AliasEntry, type AliasMap, EMPTY_ALIAS_MAP } from "../aliases/AliasMap.js";
import type { CapabilityIndex } from "../capabilities/CapabilityIndex.js";
import { type Lookup, type RepertoireIndex, repertoireIndex } from "./RepertoireIndex.js";
import { rankCandidates } from "./rankCandidates.js";

/** The resolution tiers, in the order they are tried. */
export const RESOLUTION_TIERS = ["exact", "alias", "prefix", "capability"] as const;

/** One resolution tier. */
export type ResolutionTier = (typeof RESOLUTION_TIERS)[number];

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
export interface ResolveFailure {
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

interface Pack {
  aliases: ReadonlyMap<string, AliasEntry>;
  prefixes: readonly string[];
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
 * Creates the resolver every tool call goes through. Tiers 1–2 are map lookups over a per-repertoire
 * index; tier 3 tries each configured prefix; tier 4 looks up the name's capability.
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

  function single(input: string, lookup: Lookup, tier: ResolutionTier, how: string): ToolDescriptor | undefined {
    if (lookup === undefined || !Array.isArray(lookup)) return lookup as ToolDescriptor | undefined;
    counts.ambiguous++;
    throw ambiguous(input, tier, lookup, how);
  }

  function byPrefix(
    name: string,
    index: RepertoireIndex,
    pack: Pack,
    specialist: string | undefined,
    warnings: string[],
  ) {
    let hit: { tool: ToolDescriptor; prefix: string } | undefined;
    const tied: ToolDescriptor[] = [];
    for (const prefix of pack.prefixes) {
      if (!name.startsWith(prefix) || name.length === prefix.length) continue;
      const stripped = name.slice(prefix.length);
      const tool = single(name, index.lookup(stripped), "prefix", `"${stripped}" after stripping "${prefix}"`);
      if (!tool) continue;
      if (!hit) hit = { tool, prefix };
      else if (hit.tool !== tool && !tied.includes(tool)) tied.push(tool);
    }
    if (!hit) return undefined;
    if (tied.length) {
      counts.ambiguous++;
      throw ambiguous(name, "prefix", [hit.tool, ...tied], "different prefixes strip to different tools");
    }
    counts.prefixStrips[name] = (counts.prefixStrips[name] ?? 0) + 1;
    const bare = name.slice(hit.prefix.length);
    warnings.push(
      warn({
        kind: "prefix_strip",
        input: name,
        specialist,
        prefix: hit.prefix,
        qualifiedName: hit.tool.qualifiedName,
        message:
          `"${name}" resolved to ${hit.tool.qualifiedName} by stripping the prefix "${hit.prefix}"; ` +
          `add an alias entry "${name}: ${bare}"${specialist ? ` to the ${specialist} alias map` : ""}`,
      }),
    );
    return hit;
  }

  function byCapability(name: string, index: RepertoireIndex, pack: Pack) {
    if (!capabilities) return undefined;
    let ids = capabilities.capabilitiesOfName(name);
    if (!ids.length)
      for (const prefix of pack.prefixes)
        if (name.startsWith(prefix) && name.length > prefix.length) {
          ids = capabilities.capabilitiesOfName(name.slice(prefix.length));
          if (ids.length) break;
        }
    if (!ids.length) return undefined;
    const sets = ids.map((id) => index.withCapability(capabilities, id));
    // Tools with every capability the name suggests; when none has all, any of them.
    const first = sets[0] ?? [];
    let tools = first.filter((tool) => sets.every((set) => set.includes(tool)));
    if (!tools.length) tools = [...new Set(sets.flat())];
    if (tools.length > 1) {
      counts.ambiguous++;
      throw ambiguous(name, "capability", tools, `${tools.length} tools have the capability ${ids.join(" + ")}`);
    }
    const tool = tools[0];
    return tool && { tool, capabilities: ids };
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
    const index = repertoireIndex(repertoire);
    const specialist = resolveOptions?.specialist;
    const exact = single(name, index.lookup(name), "exact", "the bare name is on several servers");
    if (exact) return found(name, exact, "exact", []);

    const pack = (specialist !== undefined && packs.get(specialist)) || shared;
    const warnings: string[] = [];
    const alias = pack.aliases.get(name);
    if (alias) {
      const target = single(name, index.lookup(alias.to), "alias", `alias target "${alias.to}" is on several servers`);
      if (target) return found(name, target, "alias", warnings, `${alias.from} → ${alias.to} in ${alias.file}`);
      warnings.push(
        warn({
          kind: "alias_target_missing",
          input: name,
          specialist,
          message: `alias "${name}" → "${alias.to}" (${alias.file}) names a tool that is not in this repertoire`,
        }),
      );
    }
    const stripped = byPrefix(name, index, pack, specialist, warnings);
    if (stripped) return found(name, stripped.tool, "prefix", warnings, `prefix "${stripped.prefix}"`);
    const capable = byCapability(name, index, pack);
    if (capable)
      return found(name, capable.tool, "capability", warnings, `capability ${capable.capabilities.join(" + ")}`);
    return { miss: MISS, index, pack, warnings };
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
