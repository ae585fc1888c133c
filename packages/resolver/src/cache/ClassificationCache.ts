/** One cached classification of one tool. */
export interface CachedClassification {
  /** `<server>__<tool>`: the cache key (with the store's prefix). */
  qualifiedName: string;
  /** Hash of the tool's definition when it was classified ({@link toolDefinitionHash}). */
  definitionHash: string;
  /** `id@version` of the classifier that produced it. */
  classifier: string;
  /** Hash of the capability catalog it was classified against. */
  catalogHash: string;
  capabilities: string[];
  reasons: string[];
  /** ISO time of classification. */
  classifiedAt: string;
}

/**
 * Where classifications persist between runs, keyed by qualified tool name. An entry is only used when
 * its definition hash, classifier and catalog hash all still match.
 */
export interface ClassificationCache {
  /** `file` or `redis`, for reports. */
  readonly kind: string;
  /** Where it lives (a file path, a Redis URL without credentials). */
  readonly location: string;
  getMany(qualifiedNames: readonly string[]): Promise<(CachedClassification | undefined)[]>;
  setMany(entries: readonly CachedClassification[]): Promise<void>;
  close(): Promise<void>;
}

/** True when `value` has the shape of a {@link CachedClassification} (cache content is never trusted blindly). */
export function isCachedClassification(value: unknown): value is CachedClassification {
  if (!value || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  const strings = ["qualifiedName", "definitionHash", "classifier", "catalogHash", "classifiedAt"];
  return (
    strings.every((k) => typeof v[k] === "string") &&
    Array.isArray(v.capabilities) &&
    v.capabilities.every((c) => typeof c === "string") &&
    Array.isArray(v.reasons)
  );
}
