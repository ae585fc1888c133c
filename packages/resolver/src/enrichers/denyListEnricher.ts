import type { ToolEnricher } from "./ToolEnricher.js";

/** Deny patterns: for everyone, and per specialist. */
export interface DenyList {
  all?: readonly string[];
  bySpecialist?: Readonly<Record<string, readonly string[]>>;
}

function compile(pattern: string): RegExp {
  const source = pattern
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${source}$`);
}

/**
 * Drops tools matching a deny pattern: a qualified name (`filesystem__write_file`), a bare tool name
 * (`write_file`, on any server) or a `*` glob over either (`filesystem__*`, `*delete*`).
 *
 * @example
 * denyListEnricher({ all: ["*delete*"], bySpecialist: { "design-agent": ["filesystem__move_file"] } })
 */
export function denyListEnricher(deny: DenyList | readonly string[]): ToolEnricher {
  const list: DenyList = Array.isArray(deny) ? { all: deny } : (deny as DenyList);
  const all = (list.all ?? []).map(compile);
  const bySpecialist = new Map(Object.entries(list.bySpecialist ?? {}).map(([name, p]) => [name, p.map(compile)]));
  return (_harness, specialist, toolMap) => {
    const rules = [...all, ...(bySpecialist.get(specialist.name) ?? [])];
    if (!rules.length) return toolMap;
    return new Map(
      [...toolMap].filter(([key, entry]) => {
        const bare = entry.tool?.name ?? key;
        return !rules.some((rule) => rule.test(key) || rule.test(bare));
      }),
    );
  };
}
