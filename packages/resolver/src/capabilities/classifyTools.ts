import { MeshflowError, type ToolDescriptor } from "@meshflow/core";
import type { CachedClassification, ClassificationCache } from "../cache/ClassificationCache.js";
import type { CapabilityCatalog } from "./CapabilityCatalog.js";
import { CapabilityIndex, type ToolClassification } from "./CapabilityIndex.js";
import { applyOverride, type CapabilityOverrides, overrideFor } from "./CapabilityOverrides.js";
import type { Classifier, ClassifierVerdict } from "./Classifier.js";
import { createRuleClassifier } from "./ruleClassifier.js";
import { toolDefinitionHash } from "./toolDefinitionHash.js";

/** Options of {@link classifyTools}. */
export interface ClassifyOptions {
  catalog: CapabilityCatalog;
  /** Default: the deterministic rule classifier. */
  classifier?: Classifier;
  /** Where verdicts persist; without one every tool is classified on every call. */
  cache?: ClassificationCache;
  /** Applied last: overrides always win. */
  overrides?: CapabilityOverrides | undefined;
  /** The clock for `classifiedAt` (injected by tests). */
  now?: () => Date;
}

function checkVerdict(
  verdict: ClassifierVerdict | undefined,
  tool: ToolDescriptor,
  classifier: Classifier,
  catalog: CapabilityCatalog,
) {
  if (!verdict)
    throw new MeshflowError("internal", `classifier ${classifier.id} returned no verdict for ${tool.qualifiedName}`);
  for (const id of verdict.capabilities)
    if (!catalog.capabilities.has(id))
      throw new MeshflowError(
        "capabilities_invalid",
        `classifier ${classifier.id} gave ${tool.qualifiedName} the capability "${id}", which ${catalog.file} does not define`,
        { details: { tool: tool.qualifiedName, capability: id } },
      );
  return verdict;
}

/**
 * Classifies every tool once: a cached verdict is reused while the tool's definition hash, the classifier
 * (`id@version`) and the catalog hash are unchanged; the rest go to the classifier in one batch and are
 * written back to the cache. Overrides are applied last and always win. Resolution then reads the returned
 * index in memory.
 *
 * @example
 * const index = await classifyTools(tools, { catalog, cache: new FileClassificationCache() });
 * index.capabilitiesOf("filesystem__read_text_file"); // ["filesystem_read"]
 */
export async function classifyTools(
  tools: readonly ToolDescriptor[],
  options: ClassifyOptions,
): Promise<CapabilityIndex> {
  const { catalog, cache, overrides } = options;
  const classifier = options.classifier ?? createRuleClassifier();
  const classifierId = `${classifier.id}@${classifier.version}`;
  const now = options.now ?? (() => new Date());
  const hashes = tools.map(toolDefinitionHash);
  const cached = cache ? await cache.getMany(tools.map((t) => t.qualifiedName)) : [];

  const verdicts: (CachedClassification | undefined)[] = tools.map((_, i) => {
    const hit = cached[i];
    const fresh =
      hit &&
      hit.definitionHash === hashes[i] &&
      hit.classifier === classifierId &&
      hit.catalogHash === catalog.hash &&
      hit.capabilities.every((c) => catalog.capabilities.has(c));
    return fresh ? hit : undefined;
  });
  const missing = tools.flatMap((tool, i) => (verdicts[i] ? [] : [{ tool, i }]));
  const fromCache = tools.length - missing.length;
  if (missing.length) {
    const results = await classifier.classify(
      missing.map((m) => m.tool),
      catalog,
    );
    const classifiedAt = now().toISOString();
    const written: CachedClassification[] = [];
    missing.forEach(({ tool, i }, k) => {
      const verdict = checkVerdict(results[k], tool, classifier, catalog);
      const entry: CachedClassification = {
        qualifiedName: tool.qualifiedName,
        definitionHash: hashes[i] ?? "",
        classifier: classifierId,
        catalogHash: catalog.hash,
        capabilities: [...verdict.capabilities],
        reasons: [...verdict.reasons],
        classifiedAt,
      };
      verdicts[i] = entry;
      written.push(entry);
    });
    await cache?.setMany(written);
  }

  let overridden = 0;
  const fresh = new Set(missing.map((m) => m.i));
  const entries: ToolClassification[] = tools.map((tool, i) => {
    const verdict = verdicts[i] as CachedClassification;
    let capabilities: readonly string[] = verdict.capabilities;
    let reasons: readonly string[] = verdict.reasons;
    let source = fresh.has(i) ? classifier.id : "cache";
    const override = overrides ? overrideFor(overrides, tool) : undefined;
    if (override && overrides) {
      capabilities = applyOverride(capabilities, override);
      reasons = [...reasons, `override in ${overrides.file}: ${JSON.stringify(override)}`];
      source = "override";
      overridden++;
    }
    return {
      qualifiedName: tool.qualifiedName,
      server: tool.server,
      tool: tool.name,
      capabilities,
      source,
      classifier: verdict.classifier,
      reasons,
      definitionHash: verdict.definitionHash,
    };
  });
  return new CapabilityIndex(catalog, entries, {
    tools: tools.length,
    fromCache,
    classified: missing.length,
    overridden,
  });
}
