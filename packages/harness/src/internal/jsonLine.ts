/** The longest event line an adapter parses; longer lines (a huge tool result echoed back) are skipped. */
export const MAX_EVENT_LINE = 4 * 1024 * 1024;

/** A line of a program's JSON-lines stream as an object, or undefined (not JSON, not an object, too long). */
export function jsonLine(line: string): Record<string, unknown> | undefined {
  if (line.length > MAX_EVENT_LINE || !line.startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** A field of an object as an object ({} when it is not one). */
export function field(value: unknown, name: string): Record<string, unknown> {
  const inner = (value as Record<string, unknown> | undefined)?.[name];
  return typeof inner === "object" && inner !== null && !Array.isArray(inner) ? (inner as Record<string, unknown>) : {};
}

/** A number, or 0. */
export function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** A string, or "". */
export function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** The model endpoint without a trailing `/v1` (programs that add the API's path themselves). */
export function withoutVersionPath(url: string): string {
  return url.replace(/\/+$/, "").replace(/\/v1$/, "");
}
