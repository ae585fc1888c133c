/**
 * The wait a refused answer asks for, in ms, from its headers: `retry-after-ms` (OpenAI), else
 * `retry-after` as seconds or as an HTTP date; undefined when it asks for none (or nonsense).
 */
export function retryAfterMs(headers: unknown, now = Date.now()): number | undefined {
  if (typeof headers !== "object" || headers === null) return undefined;
  const read = (name: string): string | undefined => {
    for (const [key, value] of Object.entries(headers))
      if (key.toLowerCase() === name && typeof value === "string") return value.trim();
    return undefined;
  };
  const ms = Number(read("retry-after-ms"));
  if (read("retry-after-ms") && Number.isFinite(ms) && ms >= 0) return ms;
  const value = read("retry-after");
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
