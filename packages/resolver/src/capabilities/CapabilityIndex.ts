import type { CapabilityCatalog } from "./CapabilityCatalog.js";
import { capabilitiesOfName } from "./ruleClassifier.js";

/** Where a tool's capabilities came from: a classifier's id (`rule`), the cache, or an override. */
export type ClassificationSource = "cache" | "override" | (string & {});

/** The capabilities of one tool, with provenance. */
export interface ToolClassification {
  qualifiedName: string;
  server: string;
  tool: string;
  capabilities: readonly string[];
  /** `override` when an override changed the result; else `cache`, or the classifier's id (`rule`). */
  source: ClassificationSource;
  /** `id@version` of the classifier behind the (cached or fresh) verdict. */
  classifier: string;
  reasons: readonly string[];
  definitionHash: string;
}

/** Counts of one classification pass. */
export interface ClassificationStats {
  tools: number;
  fromCache: number;
  classified: number;
  overridden: number;
}

/**
 * Every discovered tool's capabilities, looked up in memory: `capabilitiesOf(tool)` and
 * `toolsWith(capability)` are map lookups. Built once by `classifyTools`.
 */
export class CapabilityIndex {
  readonly catalog: CapabilityCatalog;
  readonly stats: ClassificationStats;
  private readonly byTool: ReadonlyMap<string, ToolClassification>;
  private readonly byCapability = new Map<string, string[]>();
  private readonly nameCapabilities = new Map<string, readonly string[]>();

  constructor(catalog: CapabilityCatalog, entries: readonly ToolClassification[], stats?: ClassificationStats) {
    this.catalog = catalog;
    this.byTool = new Map(entries.map((e) => [e.qualifiedName, e]));
    for (const entry of entries)
      for (const capability of entry.capabilities) {
        const list = this.byCapability.get(capability);
        if (list) list.push(entry.qualifiedName);
        else this.byCapability.set(capability, [entry.qualifiedName]);
      }
    this.stats = stats ?? { tools: entries.length, fromCache: 0, classified: entries.length, overridden: 0 };
  }

  /** The classification of a tool, or undefined when it was not classified. */
  get(qualifiedName: string): ToolClassification | undefined {
    return this.byTool.get(qualifiedName);
  }

  /** A tool's capability ids (empty when unclassified). */
  capabilitiesOf(qualifiedName: string): readonly string[] {
    return this.byTool.get(qualifiedName)?.capabilities ?? [];
  }

  /** Qualified names of every classified tool with `capability`, in discovery order. */
  toolsWith(capability: string): readonly string[] {
    return this.byCapability.get(capability) ?? [];
  }

  /** Every classification, in discovery order. */
  entries(): ToolClassification[] {
    return [...this.byTool.values()];
  }

  /** The capabilities a bare name suggests (catalog names, then name rules), memoised. */
  capabilitiesOfName(name: string): readonly string[] {
    let found = this.nameCapabilities.get(name);
    if (!found) {
      found = capabilitiesOfName(this.catalog, name);
      this.nameCapabilities.set(name, found);
    }
    return found;
  }
}
