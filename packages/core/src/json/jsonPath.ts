const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** Formats a path of keys and indexes as a JSON path: `["a", 2, "b c"]` → `$.a[2]["b c"]`. */
export function formatJsonPath(segments: readonly PropertyKey[]): string {
  let out = "$";
  for (const segment of segments) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (typeof segment === "string" && IDENTIFIER.test(segment)) out += `.${segment}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}
