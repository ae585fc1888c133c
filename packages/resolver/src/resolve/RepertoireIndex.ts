import type { ToolDescriptor } from "@meshflow/core";
import type { CapabilityIndex } from "../capabilities/CapabilityIndex.js";

/** What a name means in one repertoire: one tool, several (ambiguous), or nothing. */
export type Lookup = ToolDescriptor | readonly ToolDescriptor[] | undefined;

/**
 * A repertoire's lookup tables, built once per repertoire array and reused while the array lives
 * (repertoires are treated as immutable; a changed length rebuilds the index as a safety net).
 */
export class RepertoireIndex {
  readonly tools: readonly ToolDescriptor[];
  readonly byQualified = new Map<string, ToolDescriptor>();
  readonly byBare = new Map<string, ToolDescriptor | ToolDescriptor[]>();
  private readonly byCapabilityFor = new WeakMap<CapabilityIndex, Map<string, ToolDescriptor[]>>();

  constructor(tools: readonly ToolDescriptor[]) {
    this.tools = tools;
    for (const tool of tools) {
      this.byQualified.set(tool.qualifiedName, tool);
      const seen = this.byBare.get(tool.name);
      if (seen === undefined) this.byBare.set(tool.name, tool);
      else if (Array.isArray(seen)) seen.push(tool);
      else if (seen !== tool) this.byBare.set(tool.name, [seen as ToolDescriptor, tool]);
    }
  }

  /** A qualified name, else a bare name (which may be ambiguous). */
  lookup(name: string): Lookup {
    return this.byQualified.get(name) ?? this.byBare.get(name);
  }

  /** The repertoire's tools with `capability`, by the given capability index (built on first use). */
  withCapability(capabilities: CapabilityIndex, capability: string): readonly ToolDescriptor[] {
    let map = this.byCapabilityFor.get(capabilities);
    if (!map) {
      map = new Map();
      for (const tool of this.tools)
        for (const id of capabilities.capabilitiesOf(tool.qualifiedName)) {
          const list = map.get(id);
          if (list) list.push(tool);
          else map.set(id, [tool]);
        }
      this.byCapabilityFor.set(capabilities, map);
    }
    return map.get(capability) ?? [];
  }

  /** The distinct servers of the repertoire, in order. */
  servers(): string[] {
    return [...new Set(this.tools.map((t) => t.server))];
  }
}

const indexes = new WeakMap<readonly ToolDescriptor[], RepertoireIndex>();

/** The cached index of `tools` (by array identity). */
export function repertoireIndex(tools: readonly ToolDescriptor[]): RepertoireIndex {
  let index = indexes.get(tools);
  if (index === undefined || index.tools.length !== tools.length) {
    index = new RepertoireIndex(tools);
    indexes.set(tools, index);
  }
  return index;
}
