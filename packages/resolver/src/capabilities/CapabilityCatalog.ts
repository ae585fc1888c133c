import { createHash } from "node:crypto";
import type { Problem } from "@meshflow/core";
import { z } from "zod";
import { dataProblem, issueMessage, parseDataText, readText, throwProblems } from "../internal/dataFile.js";
import { normalizeToolName } from "../internal/toolNames.js";

const CAPABILITY_ID = /^[a-z][a-z0-9_]*$/;

const AnnotationRequirementSchema = z.strictObject({
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});

const CapabilityEntrySchema = z.strictObject({
  description: z.string().min(1),
  /** Tool names known to have this capability (compared after normalisation: `get-sum` = `get_sum`). */
  tools: z.array(z.string().min(1)).default([]),
  /** Regular expressions (case-insensitive) for the deterministic rule classifier. */
  match: z
    .strictObject({
      name: z.array(z.string().min(1)).default([]),
      description: z.array(z.string().min(1)).default([]),
    })
    .default({ name: [], description: [] }),
  /** A rule match counts only when the tool's annotations (with MCP defaults) have these values. */
  annotations: AnnotationRequirementSchema.optional(),
});

/**
 * `skills/capabilities.yaml`: capability categories, their known tool names and the rules that
 * classify a tool nobody listed.
 */
export const CapabilityCatalogFileSchema = z.strictObject({
  version: z.literal(1),
  capabilities: z.record(z.string().regex(CAPABILITY_ID, "a capability id is lower_snake_case"), CapabilityEntrySchema),
});

/** Annotation values a rule requires; compared with MCP's defaults for absent hints. */
export type AnnotationRequirement = z.infer<typeof AnnotationRequirementSchema>;

/** One capability category, its rules compiled. */
export interface Capability {
  id: string;
  description: string;
  /** Known tool names, normalised. */
  tools: ReadonlySet<string>;
  nameRules: readonly RegExp[];
  descriptionRules: readonly RegExp[];
  annotations?: AnnotationRequirement;
}

/** A loaded, validated capability catalog. */
export interface CapabilityCatalog {
  /** The file it was read from (or a label for in-memory catalogs). */
  readonly file: string;
  readonly capabilities: ReadonlyMap<string, Capability>;
  /** Normalised known tool name → capability ids listing it. */
  readonly knownNames: ReadonlyMap<string, readonly string[]>;
  /** Hash of the catalog's content: part of every cached classification, so editing the catalog re-classifies. */
  readonly hash: string;
}

/** The catalog's default location, relative to the working directory. */
const DEFAULT_CAPABILITIES_FILE = "skills/capabilities.yaml";

function compile(
  file: string,
  id: string,
  field: "name" | "description",
  sources: readonly string[],
  problems: Problem[],
) {
  const rules: RegExp[] = [];
  sources.forEach((source, i) => {
    try {
      rules.push(new RegExp(source, "i"));
    } catch (error) {
      problems.push(
        dataProblem(file, ["capabilities", id, "match", field, i], `not a valid regular expression: ${String(error)}`),
      );
    }
  });
  return rules;
}

/** Builds a catalog from already-parsed content (what {@link loadCapabilityCatalog} does after reading). */
export function buildCapabilityCatalog(
  content: z.input<typeof CapabilityCatalogFileSchema>,
  file = "(in memory)",
): CapabilityCatalog {
  const parsed = CapabilityCatalogFileSchema.safeParse(content, { reportInput: true });
  if (!parsed.success)
    throwProblems(
      "capabilities_invalid",
      parsed.error.issues.map((issue) => dataProblem(file, issue.path, issueMessage(issue))),
    );
  const problems: Problem[] = [];
  const capabilities = new Map<string, Capability>();
  const knownNames = new Map<string, string[]>();
  for (const [id, entry] of Object.entries(parsed.data.capabilities)) {
    const tools = new Set(entry.tools.map(normalizeToolName));
    for (const name of tools) knownNames.set(name, [...(knownNames.get(name) ?? []), id]);
    capabilities.set(id, {
      id,
      description: entry.description,
      tools,
      nameRules: compile(file, id, "name", entry.match.name, problems),
      descriptionRules: compile(file, id, "description", entry.match.description, problems),
      ...(entry.annotations ? { annotations: entry.annotations } : {}),
    });
  }
  if (problems.length) throwProblems("capabilities_invalid", problems);
  const hash = createHash("sha256").update(JSON.stringify(parsed.data)).digest("hex").slice(0, 16);
  return { file, capabilities, knownNames, hash };
}

/** A catalog without capabilities: every tool is unclassified (a run without a skills folder). */
export const EMPTY_CAPABILITY_CATALOG: CapabilityCatalog = buildCapabilityCatalog({ version: 1, capabilities: {} });

/**
 * Loads and validates the capability catalog (YAML or JSON).
 *
 * @example
 * const catalog = loadCapabilityCatalog(); // skills/capabilities.yaml
 * catalog.capabilities.has("filesystem_read"); // true
 */
export function loadCapabilityCatalog(file: string = DEFAULT_CAPABILITIES_FILE): CapabilityCatalog {
  const text = readText(file, "capability catalog");
  return buildCapabilityCatalog(parseDataText(text, file, CapabilityCatalogFileSchema, "capabilities_invalid"), file);
}
