import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { MeshflowError, suggest, writeFileAtomic } from "@meshflow/core";
import { isMap, isScalar, parseDocument, type YAMLMap } from "yaml";

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

/** A YAML plain scalar when safe, else a double-quoted one. */
const yamlString = (s: string): string => (/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(s) ? s : JSON.stringify(s));

function lineStart(text: string, at: number): number {
  return text.lastIndexOf("\n", at - 1) + 1;
}

function lineEnd(text: string, at: number): number {
  const end = text.indexOf("\n", at);
  return end < 0 ? text.length : end + 1;
}

/** The edited file's text: only the edited entry's line changes, every other line (comments too) stays as written. */
function edited(text: string, file: string, edit: OverrideEdit): string {
  const doc = parseDocument(text);
  if (doc.errors.length)
    throw new MeshflowError("capabilities_invalid", `${file}: not valid YAML: ${doc.errors[0]?.message ?? ""}`);
  const value = edit.capabilities ? `[${[...new Set(edit.capabilities)].map(yamlString).join(", ")}]` : "";
  const overrides = doc.get("overrides", true);
  if (
    overrides !== undefined &&
    overrides !== null &&
    !isMap(overrides) &&
    !(isScalar(overrides) && overrides.value === null)
  )
    throw new MeshflowError("capabilities_invalid", `${file}: overrides: expected a mapping of tool → capabilities`);
  const map = isMap(overrides) ? (overrides as YAMLMap<unknown, unknown>) : undefined;
  const pair = map?.items.find((p) => isScalar(p.key) && p.key.value === edit.tool);
  // Removing the last entry in place would leave `overrides:` (null): that case is rewritten below.
  const emptied = !edit.capabilities && pair !== undefined && map?.items.length === 1;
  if (map && !map.flow && map.items.length && !emptied) {
    if (pair) {
      const keyRange = isScalar(pair.key) ? pair.key.range : undefined;
      const valueRange = (pair.value as { range?: [number, number, number] } | null)?.range;
      if (!keyRange || !valueRange)
        throw new MeshflowError("internal", `${file}: cannot locate overrides.${edit.tool}`);
      if (!edit.capabilities)
        return text.slice(0, lineStart(text, keyRange[0])) + text.slice(lineEnd(text, valueRange[1] - 1));
      return text.slice(0, valueRange[0]) + value + text.slice(valueRange[1]);
    }
    if (!edit.capabilities) return text;
    const first = map.items[0];
    const last = map.items.at(-1);
    const firstKey = first && isScalar(first.key) ? first.key.range : undefined;
    const lastValue = (last?.value as { range?: [number, number, number] } | null)?.range;
    if (!firstKey || !lastValue) throw new MeshflowError("internal", `${file}: cannot locate the overrides`);
    const indent = text.slice(lineStart(text, firstKey[0]), firstKey[0]);
    const at = lineEnd(text, lastValue[1] - 1);
    const before = text.slice(0, at);
    return `${before}${before.endsWith("\n") ? "" : "\n"}${indent}${yamlString(edit.tool)}: ${value}\n${text.slice(at)}`;
  }
  // No block mapping to edit in place (`overrides: {}`, none yet, or a flow mapping): rewrite the document.
  if (!map) doc.set("overrides", doc.createNode({}));
  const target = doc.get("overrides", true) as YAMLMap;
  if (edit.capabilities) target.set(edit.tool, doc.createNode([...new Set(edit.capabilities)], { flow: true }));
  else target.delete(edit.tool);
  target.flow = target.items.length === 0;
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

/**
 * Sets (or removes) one tool's entry in `capability-overrides.yaml` and replaces the file
 * atomically. Only that entry's line changes: the other entries and the comments stay as the admin
 * wrote them. Capability ids must be in `known` (the catalog): an unknown one is a
 * `capabilities_invalid` error naming it, with suggestions, and the file is left untouched.
 */
export function writeOverride(file: string, edit: OverrideEdit, known: readonly string[]): void {
  if (!/^\S+$/.test(edit.tool))
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
  const next = edited(text, file, edit);
  // The result must still parse as the same kind of file before it replaces the old one.
  const check = parseDocument(next);
  if (check.errors.length)
    throw new MeshflowError("internal", `${file}: the edit would not be valid YAML: ${check.errors[0]?.message ?? ""}`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileAtomic(file, next);
}
