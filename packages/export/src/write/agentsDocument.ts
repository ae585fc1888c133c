import { MeshflowError } from "@meshflow/core";
import { applyEdits, modify, type ParseError, parseTree, printParseErrorCode } from "jsonc-parser";
import { parse as parseYaml } from "yaml";
import { yamlText } from "./markdownFile.js";

/** What goes into a JSON or YAML agents document. */
export interface DocumentUpdate {
  /** The document as it is on disk, or undefined when it does not exist. */
  existing: string | undefined;
  /** The file, for messages. */
  file: string;
  /** Where the agents sit in the document. */
  path: readonly string[];
  /** The document a new file starts from. */
  empty: Readonly<Record<string, unknown>>;
  /** Agent name → entry, in write order. */
  entries: readonly (readonly [string, Record<string, unknown>])[];
  /** Drop the agents not in `entries` (a full export); otherwise keep them (a partial one). */
  replace: boolean;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function invalid(file: string, message: string, cause?: unknown): MeshflowError {
  return new MeshflowError("export_invalid", `${file}: ${message}`, { cause, details: { file } });
}

function merged(root: Record<string, unknown>, update: DocumentUpdate): Record<string, unknown> {
  const out = { ...root };
  let parent = out;
  for (const key of update.path) {
    const child = parent[key];
    const copy = isObject(child) ? { ...child } : {};
    parent[key] = copy;
    parent = copy;
  }
  if (update.replace) for (const key of Object.keys(parent)) delete parent[key];
  for (const [name, entry] of update.entries) parent[name] = entry;
  return out;
}

function parsedRoot(update: DocumentUpdate, parse: (text: string) => unknown): Record<string, unknown> {
  if (!update.existing?.trim()) return { ...update.empty };
  let root: unknown;
  try {
    root = parse(update.existing);
  } catch (cause) {
    throw invalid(update.file, `cannot merge the agents into it: ${String(cause)}`, cause);
  }
  if (root === null || root === undefined) return { ...update.empty };
  if (!isObject(root)) throw invalid(update.file, "cannot merge the agents into it: its top level is not an object");
  return root;
}

/** A JSON document this package owns: parsed, agents set (or replaced), written with 2-space indentation. */
export function jsonDocument(update: DocumentUpdate): string {
  return `${JSON.stringify(merged(parsedRoot(update, JSON.parse), update), null, 2)}\n`;
}

/** A YAML document this package owns, headed by `comment`. */
export function yamlDocument(update: DocumentUpdate, comment: string): string {
  return yamlText(merged(parsedRoot(update, parseYaml), update), comment);
}

/**
 * A JSON (or JSONC) config file of the harness, edited in place with jsonc-parser: only the agents' entries
 * change; every other key, comment and the formatting stay as they were. Agents not exported are kept.
 */
export function jsonInPlace(update: DocumentUpdate): string {
  let text = update.existing?.trim() ? update.existing : `${JSON.stringify(update.empty, null, 2)}\n`;
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true });
  if (errors.length) {
    const first = errors[0] as ParseError;
    throw invalid(update.file, `not valid JSON at offset ${first.offset}: ${printParseErrorCode(first.error)}`);
  }
  if (tree && tree.type !== "object") throw invalid(update.file, "its top level is not an object");
  for (const [name, entry] of update.entries)
    text = applyEdits(
      text,
      modify(text, [...update.path, name], entry, { formattingOptions: { insertSpaces: true, tabSize: 2, eol: "\n" } }),
    );
  return text.endsWith("\n") ? text : `${text}\n`;
}
