import * as crypto from "node:crypto";

/**
 * JSON with object keys sorted at every level, so equal values always give equal text whatever order
 * their keys were written in (idempotency keys, argument and result digests, request digests, tool
 * definition hashes). `undefined` members are dropped, as `JSON.stringify` does; an object with its own
 * `toJSON` (a Date) is written as `JSON.stringify` writes it.
 *
 * @example
 * canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] }) // '{"a":[{"c":3,"d":2}],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object" && (value as { toJSON?: unknown }).toJSON === undefined) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/** Node's one-shot digest (Node ≥ 20.12): several times cheaper than a hash object for short texts. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: "hex") => string }).hash;

/** sha256 (hex) of a text. */
export function sha256Hex(text: string): string {
  return oneShot ? oneShot("sha256", text, "hex") : crypto.createHash("sha256").update(text).digest("hex");
}

/** `sha256:<hex>` of a value's canonical JSON: how arguments and results appear in events and evidence. */
export function digestOf(value: unknown): string {
  // JSON.stringify(undefined) is undefined: an absent value has a digest of its own.
  return `sha256:${sha256Hex(canonicalJson(value) ?? "undefined")}`;
}
