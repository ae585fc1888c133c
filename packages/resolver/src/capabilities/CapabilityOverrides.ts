import { existsSync } from "node:fs";
import { type Problem, suggest, type ToolDescriptor } from "@meshflow/core";
import { z } from "zod";
import { dataProblem, readDataFile, throwProblems } from "../internal/dataFile.js";
import type { CapabilityCatalog } from "./CapabilityCatalog.js";

const Ids = z.array(z.string().min(1));

/**
 * The overrides file an admin edits: per tool (qualified `server__tool`, or a bare tool name for that
 * tool on every server), either the full capability list or capabilities to add and remove. Overrides
 * always win over the classifier and the cache.
 *
 * @example
 * overrides:
 *   filesystem__move_file: [filesystem_write]
 *   read_graph: { add: [knowledge_read], remove: [] }
 */
export const CapabilityOverridesFileSchema = z.strictObject({
  overrides: z
    .record(
      z.string().min(1),
      z.union([Ids, z.strictObject({ add: Ids.default([]), remove: Ids.default([]) })], {
        error: "expected a list of capability ids, or {add: [...], remove: [...]}",
      }),
    )
    .default({}),
});

/** One override rule. */
export type CapabilityOverride = { set: readonly string[] } | { add: readonly string[]; remove: readonly string[] };

/** Loaded overrides, by qualified or bare tool name. */
export interface CapabilityOverrides {
  readonly file: string;
  readonly byName: ReadonlyMap<string, CapabilityOverride>;
}

/**
 * Loads the overrides file and checks every capability id against the catalog (unknown ids are errors
 * with the file, the JSON path and a suggestion). Returns undefined when `optional` and the file is absent.
 */
export function loadCapabilityOverrides(
  file: string,
  catalog: CapabilityCatalog,
  options: { optional?: boolean } = {},
): CapabilityOverrides | undefined {
  if (options.optional && !existsSync(file)) return undefined;
  const content = readDataFile(file, CapabilityOverridesFileSchema, "capabilities_invalid", "capability overrides");
  const problems: Problem[] = [];
  const byName = new Map<string, CapabilityOverride>();
  const known = [...catalog.capabilities.keys()];
  for (const [name, value] of Object.entries(content.overrides)) {
    const override: CapabilityOverride = Array.isArray(value) ? { set: value } : value;
    const lists: [string, readonly string[]][] =
      "set" in override
        ? [["", override.set]]
        : [
            ["add", override.add],
            ["remove", override.remove],
          ];
    for (const [field, ids] of lists)
      ids.forEach((id, i) => {
        if (catalog.capabilities.has(id)) return;
        const hint = suggest(id, known);
        const path = field ? ["overrides", name, field, i] : ["overrides", name, i];
        problems.push(
          dataProblem(
            file,
            path,
            `unknown capability "${id}"${hint.length ? ` (did you mean "${hint.join('", "')}"?)` : ""}; ` +
              `the catalog ${catalog.file} defines ${known.join(", ")}`,
          ),
        );
      });
    byName.set(name, override);
  }
  if (problems.length) throwProblems("capabilities_invalid", problems);
  return { file, byName };
}

/** The override for a tool: its qualified name first, then its bare name. */
export function overrideFor(overrides: CapabilityOverrides, tool: ToolDescriptor): CapabilityOverride | undefined {
  return overrides.byName.get(tool.qualifiedName) ?? overrides.byName.get(tool.name);
}

/** Applies an override to a capability list; order: the list's order, then added ids. */
export function applyOverride(capabilities: readonly string[], override: CapabilityOverride): string[] {
  if ("set" in override) return [...new Set(override.set)];
  const removed = new Set(override.remove);
  return [...new Set([...capabilities, ...override.add])].filter((id) => !removed.has(id));
}
