import { createHash } from "node:crypto";

/** JSON with object keys sorted, so equal values always give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}

/** `sha256:<hex>` of the canonical JSON of a value: how arguments and results appear in events. */
export function digestOf(value: unknown): string {
  return `sha256:${createHash("sha256")
    .update(canonicalJson(value) ?? "undefined")
    .digest("hex")}`;
}
