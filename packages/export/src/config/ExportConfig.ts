import { existsSync, readFileSync } from "node:fs";
import {
  formatJsonPath,
  formatProblem,
  MeshflowError,
  type Problem,
  parseQualifiedName,
  UniversalTool,
} from "@meshflow/core";
import { denyListEnricher, type ToolEnricher } from "@meshflow/resolver";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { addToolsEnricher, forSpecialists, stripMcpEnricher } from "../enrichers/harnessEnrichers.js";
import type { AgentHarness } from "../harness/AgentHarness.js";
import { AGENT_HARNESSES } from "../harness/harnessNames.js";
import { harnessWriter } from "../harness/harnessWriters.js";

const KEBAB = z.string().regex(/^[a-z][a-z0-9-]*$/, "a specialist name is lower-case kebab-case");
const TOOL_NAME = z.string().refine((name) => {
  if (parseQualifiedName(name)) return true;
  try {
    UniversalTool.fromString(name);
    return true;
  } catch {
    return false;
  }
}, "expected a universal tool (read, write, edit, bash, grep, glob, webfetch, websearch, todo, task), a harness tool name or server__tool");
const ONLY = { specialists: z.array(KEBAB).min(1).optional() };

/** One enricher of an export config, applied in the order written. */
const EnricherSpecSchema = z.union([
  z.strictObject({ add: z.array(TOOL_NAME).min(1), ...ONLY }),
  z.strictObject({ deny: z.array(z.string().min(1)).min(1), ...ONLY }),
  z.strictObject({ stripMcp: z.literal(true), ...ONLY }),
]);

/** An enricher as the config file writes it. */
export type EnricherSpec = z.infer<typeof EnricherSpecSchema>;

const FRONTMATTER = z.record(z.string().min(1), z.unknown());

const HarnessSectionSchema = z.strictObject({
  /** Extra definition keys for every agent (e.g. `model: sonnet`). */
  frontmatter: FRONTMATTER.optional(),
  /** Extra definition keys per specialist, over the harness's. */
  specialists: z.record(KEBAB, z.strictObject({ frontmatter: FRONTMATTER })).optional(),
  enrichers: z.array(EnricherSpecSchema).optional(),
});

/**
 * `flow-export.yaml`: enrichers for every harness (`enrichers`, applied first) and per harness, and extra
 * definition keys.
 *
 * @example
 * enrichers:
 *   - deny: ["*delete*"]
 * harnesses:
 *   claude-code:
 *     frontmatter: { model: sonnet }
 *     enrichers:
 *       - add: [todo]
 *       - stripMcp: true
 *         specialists: [design-agent]
 */
const ExportConfigSchema = z.strictObject({
  enrichers: z.array(EnricherSpecSchema).optional(),
  harnesses: z.partialRecord(z.enum(AGENT_HARNESSES), HarnessSectionSchema).optional(),
});

/** The parsed content of an export config. */
export type ExportConfig = z.infer<typeof ExportConfigSchema>;

/** The export config file looked for in the working folder when none is named. */
const DEFAULT_EXPORT_CONFIG = "flow-export.yaml";

/** An export config as one harness uses it. */
export interface HarnessExportSettings {
  /** The config file it came from, or undefined for the defaults. */
  file: string | undefined;
  /** The enrichers, shared ones first, in file order. */
  enrichers: ToolEnricher[];
  /** Extra definition keys of one specialist. */
  extras(specialist: string): Record<string, unknown>;
}

function problem(file: string, path: readonly PropertyKey[], message: string): Problem {
  return { file, path: formatJsonPath(path), message, severity: "error" };
}

function fail(problems: readonly Problem[]): never {
  throw new MeshflowError("export_config_invalid", problems.map(formatProblem).join("\n"), { details: { problems } });
}

/** Parses and validates export config text; every problem names the file and the JSON path. */
export function parseExportConfig(text: string, file: string): ExportConfig {
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (cause) {
    throw new MeshflowError("export_config_invalid", `${file}: $: not valid YAML or JSON: ${String(cause)}`, { cause });
  }
  const parsed = ExportConfigSchema.safeParse(data ?? {});
  if (!parsed.success) fail(parsed.error.issues.map((issue) => problem(file, issue.path, issue.message)));
  const config = parsed.data;
  const problems: Problem[] = [];
  for (const harness of AGENT_HARNESSES) {
    const section = config.harnesses?.[harness];
    const reserved = harnessWriter(harness).reservedKeys;
    const check = (keys: Record<string, unknown> | undefined, path: PropertyKey[]) => {
      for (const key of Object.keys(keys ?? {}))
        if (reserved.includes(key))
          problems.push(problem(file, [...path, key], `${harness} sets "${key}" itself from the specialist`));
    };
    check(section?.frontmatter, ["harnesses", harness, "frontmatter"]);
    for (const [name, entry] of Object.entries(section?.specialists ?? {}))
      check(entry.frontmatter, ["harnesses", harness, "specialists", name, "frontmatter"]);
  }
  if (problems.length) fail(problems);
  return config;
}

/** Builds the enricher one config entry describes. */
function enricherOf(spec: EnricherSpec): ToolEnricher {
  const enricher =
    "add" in spec
      ? addToolsEnricher(spec.add, "config:add")
      : "deny" in spec
        ? denyListEnricher(spec.deny)
        : stripMcpEnricher();
  return spec.specialists ? forSpecialists(spec.specialists, enricher) : enricher;
}

/** The settings of one harness: the shared enrichers, then the harness's, and its extra keys. */
export function harnessSettings(config: ExportConfig, harness: AgentHarness, file?: string): HarnessExportSettings {
  const section = config.harnesses?.[harness];
  return {
    file,
    enrichers: [...(config.enrichers ?? []), ...(section?.enrichers ?? [])].map(enricherOf),
    extras: (specialist) => ({ ...section?.frontmatter, ...section?.specialists?.[specialist]?.frontmatter }),
  };
}

/**
 * Loads the export config for `harness`: `file` when given (it must exist), else `flow-export.yaml` in the
 * working folder when present, else none (no enrichers beyond the harness's own, no extra keys).
 */
export function loadExportSettings(harness: AgentHarness, file?: string): HarnessExportSettings {
  const chosen = file ?? (existsSync(DEFAULT_EXPORT_CONFIG) ? DEFAULT_EXPORT_CONFIG : undefined);
  if (!chosen) return harnessSettings({}, harness);
  let text: string;
  try {
    text = readFileSync(chosen, "utf8");
  } catch (cause) {
    throw new MeshflowError("file_not_found", `${chosen}: cannot read the export config`, {
      cause,
      details: { file: chosen },
    });
  }
  return harnessSettings(parseExportConfig(text, chosen), harness, chosen);
}
