/** Deep copy of a JSON-like value with every occurrence of each secret replaced by `***` in its strings. */
export function scrubSecrets<T>(value: T, secrets: readonly string[]): T {
  const active = secrets.filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);
  if (!active.length) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return active.reduce((text, secret) => text.split(secret).join("***"), v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}
