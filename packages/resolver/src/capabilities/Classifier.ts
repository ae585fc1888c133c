import type { ToolDescriptor } from "@meshflow/core";
import type { CapabilityCatalog } from "./CapabilityCatalog.js";

/** What a classifier says about one tool: capability ids of the catalog, and why. */
export interface ClassifierVerdict {
  capabilities: string[];
  reasons: string[];
}

/**
 * Assigns catalog capabilities to tools. The deterministic rule classifier ships; a model-backed one can
 * implement the same interface. Verdicts are cached under `id@version`, so bump `version` whenever the
 * same input could now get a different answer.
 */
export interface Classifier {
  readonly id: string;
  readonly version: string;
  /** One verdict per tool, in order. Batched so a remote classifier can classify many tools per request. */
  classify(
    tools: readonly ToolDescriptor[],
    catalog: CapabilityCatalog,
  ): readonly ClassifierVerdict[] | Promise<readonly ClassifierVerdict[]>;
}
