import type { ToolDescriptor } from "@meshflow/core";
import type { AliasEntry } from "../../aliases/AliasMap.js";
import type { CapabilityIndex } from "../../capabilities/CapabilityIndex.js";
import type { Lookup, RepertoireIndex } from "../RepertoireIndex.js";

/** The resolution tiers' names, in the order they are tried. */
export type ResolutionTier = "exact" | "alias" | "prefix" | "capability";

/** The alias entries and prefixes that apply to one specialist (its own over the shared ones). */
export interface Pack {
  aliases: ReadonlyMap<string, AliasEntry>;
  prefixes: readonly string[];
}

/** What a tier gets: the name, the repertoire's index, the specialist's pack, and the resolver's helpers. */
export interface TierQuery {
  name: string;
  index: RepertoireIndex;
  pack: Pack;
  specialist: string | undefined;
  capabilities: CapabilityIndex | undefined;
  /** Warnings of this resolution so far; a tier may add to them. */
  warnings: string[];
  /** The one tool of a lookup, or throws `tool_ambiguous` naming the tier and `how`. */
  single(lookup: Lookup, tier: ResolutionTier, how: string): ToolDescriptor | undefined;
  /** Throws `tool_ambiguous` for tied tools. */
  ambiguous(tier: ResolutionTier, tools: readonly ToolDescriptor[], how: string): never;
  /** Reports a warning (counted per input) and returns its message. */
  warn(warning: {
    kind: "prefix_strip" | "alias_target_missing";
    message: string;
    qualifiedName?: string;
    prefix?: string;
  }): string;
}

/** A tier's answer: the tool, and what decided it beyond the tier (the alias, the prefix…). */
interface TierHit {
  tool: ToolDescriptor;
  via?: string;
}

/** One resolution tier: a named way of finding the tool a name means. */
export interface Tier {
  name: ResolutionTier;
  /** The tool, or undefined to let the next tier try; throws `tool_ambiguous` when it cannot choose. */
  resolve(query: TierQuery): TierHit | undefined;
}
