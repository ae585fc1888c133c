import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { MeshflowError, suggest, writeFileAtomic } from "@meshflow/core";
import { parseDocument, YAMLMap } from "yaml";

/** An override edit (`PUT /api/tools/:name/capabilities`): the tool's full capability list, or null to drop its override. */
export interface OverrideEdit {
  /** Qualified (`server__tool`) or bare tool name, as the overrides file keys it. */
  tool: string;
  capabilities: readonly string[] | null;
}

const HEADER = `# Admin overrides of tool capabilities. They always win over the classifier and the cache.
# Key: a qualified tool name (server__tool) or a bare tool name (that tool on every server).
# Value: the full capability list, or {add: [...], remove: [...]}.
`;

/**
 * Sets (or removes) one tool's entry in `capability-overrides.yaml`, keeping every other entry and
 * the comments, and replaces the file atomically. Capability ids must be in `known` (the catalog):
 * an unknown one is a `capabilities_invalid` error naming it, with suggestions, and the file is left
 * untouched.
 */
export function writeOverride(file: string, edit: OverrideEdit, known: readonly string[]): void {
  if (!/^[^\s]+$/.test(edit.tool))
    throw new MeshflowError("usage", `tool name "${edit.tool}" is not a valid overrides key (no spaces)`);
  for (const id of edit.capabilities ?? [])
    if (!known.includes(id)) {
      const hint = suggest(id, [...known]);
      throw new MeshflowError(
        "capabilities_invalid",
        `${file}: overrides.${edit.tool}: unknown capability "${id}"${hint.length ? ` (did you mean "${hint.join('", "')}"?)` : ""}; the catalog defines ${known.join(", ")}`,
      );
    }
  const text = existsSync(file) ? readFileSync(file, "utf8") : `${HEADER}overrides: {}\n`;
  const doc = parseDocument(text);
  if (doc.errors.length)
    throw new MeshflowError("capabilities_invalid", `${file}: not valid YAML: ${doc.errors[0]?.message ?? ""}`);
  let overrides = doc.get("overrides");
  if (!(overrides instanceof YAMLMap)) {
    if (overrides !== undefined && overrides !== null)
      throw new MeshflowError("capabilities_invalid", `${file}: overrides: expected a mapping of tool → capabilities`);
    overrides = new YAMLMap();
    doc.set("overrides", overrides);
  }
  const map = overrides as YAMLMap;
  if (edit.capabilities === null) map.delete(edit.tool);
  else {
    const list = doc.createNode([...new Set(edit.capabilities)], { flow: true });
    map.set(edit.tool, list);
  }
  // An empty mapping written in block style would be `overrides:` (null), which the schema refuses.
  if (map.items.length === 0) map.flow = true;
  else if (map.flow) map.flow = false;
  mkdirSync(dirname(file), { recursive: true });
  writeFileAtomic(file, doc.toString({ lineWidth: 0 }));
}
