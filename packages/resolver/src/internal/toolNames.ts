/**
 * Normalises a tool name for catalog and rule matching: lower case, `-`, `.`, spaces and camelCase
 * boundaries become `_` (`get-sum` → `get_sum`, `readFile` → `read_file`).
 */
export function normalizeToolName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
}
