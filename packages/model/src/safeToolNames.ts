import { createHash } from "node:crypto";

/** Providers accept tool names of `[a-zA-Z0-9_-]`, at most 64 characters (OpenAI's limit, the stricter one). */
const MAX_NAME = 64;

/**
 * A provider-safe name for each qualified tool name, unique within the list: invalid characters become
 * `_`, over-long names keep their start and gain a short hash. Most names (`server__tool`) are unchanged.
 */
export function safeToolNames(qualified: readonly string[], reserved: readonly string[] = []): Map<string, string> {
  const taken = new Set(reserved);
  const names = new Map<string, string>();
  for (const q of qualified) {
    let name = q.replace(/[^a-zA-Z0-9_-]/g, "_");
    if (name.length > MAX_NAME || taken.has(name)) {
      const hash = createHash("sha256").update(q).digest("hex").slice(0, 8);
      name = `${name.slice(0, MAX_NAME - 9)}_${hash}`;
    }
    taken.add(name);
    names.set(q, name);
  }
  return names;
}
