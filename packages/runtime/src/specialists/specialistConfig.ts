import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { MeshflowError, parseYaml } from "@meshflow/core";

/** A specialist's settings: plain data (numbers, strings, lists, objects). */
export type SpecialistConfig = Record<string, unknown>;

/** One problem a {@link ConfigSchema} reports. */
export interface ConfigIssue {
  readonly path: ReadonlyArray<PropertyKey>;
  readonly message: string;
}

/**
 * What validates a specialist's settings: anything with zod's `safeParse` shape, so a zod schema is
 * passed as it is.
 */
export interface ConfigSchema<C extends SpecialistConfig = SpecialistConfig> {
  safeParse(
    value: unknown,
  ): { success: true; data: C } | { success: false; error: { issues: ReadonlyArray<ConfigIssue> } };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Merges settings: `override`'s objects merge into `base`'s recursively; arrays, values and `null`
 * replace. Neither input is changed.
 */
export function mergeConfig(base: SpecialistConfig, override: SpecialistConfig | undefined): SpecialistConfig {
  if (!override) return { ...base };
  const merged: SpecialistConfig = { ...base };
  for (const [key, value] of Object.entries(override)) {
    const current = merged[key];
    merged[key] = isPlainObject(current) && isPlainObject(value) ? mergeConfig(current, value) : value;
  }
  return merged;
}

function formatIssue(issue: ConfigIssue): string {
  const path = issue.path.map(String).join(".");
  return path ? `${path}: ${issue.message}` : issue.message;
}

/** Validates settings; the issues read `<path>: <message>`. */
export function checkConfig<C extends SpecialistConfig>(
  schema: ConfigSchema<C>,
  value: unknown,
): { ok: true; config: C } | { ok: false; issues: string[] } {
  const parsed = schema.safeParse(value);
  return parsed.success
    ? { ok: true, config: parsed.data }
    : { ok: false, issues: parsed.error.issues.map(formatIssue) };
}

/**
 * A specialist's settings for one story: its `config` with the story's `agentConfig[name]` merged over
 * it, validated by its `configSchema`. An invalid result names the story and the field.
 */
export function stepConfig(
  specialist: { name: string; config?: SpecialistConfig; configSchema?: ConfigSchema },
  story: { id: string; agentConfig?: Record<string, SpecialistConfig> | undefined },
): { ok: true; config: SpecialistConfig } | { ok: false; message: string } {
  const override = story.agentConfig?.[specialist.name];
  const merged = mergeConfig(specialist.config ?? {}, override);
  if (!specialist.configSchema) return { ok: true, config: merged };
  const checked = checkConfig(specialist.configSchema, merged);
  if (checked.ok) return { ok: true, config: checked.config };
  const where = override
    ? `${specialist.name}'s config with ${story.id}'s agentConfig["${specialist.name}"] over it`
    : `${specialist.name}'s config`;
  return { ok: false, message: `invalid settings (${where}): ${checked.issues.join("; ")}` };
}

/**
 * Reads a specialist's default settings from a YAML or JSON file (comments allowed) and validates them.
 * Errors name the file, and the line or the field: `specialist_invalid`, or `file_not_found`.
 *
 * @example
 * // agents/refactor-agent/agent.ts
 * const config = loadSpecialistConfig(new URL("./config.yaml", import.meta.url), RefactorConfigSchema);
 * export default defineSpecialist({ name: "refactor-agent", config, configSchema: RefactorConfigSchema, … });
 */
export function loadSpecialistConfig<C extends SpecialistConfig = SpecialistConfig>(
  file: string | URL,
  schema?: ConfigSchema<C>,
): C {
  const path = file instanceof URL ? fileURLToPath(file) : file;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (cause) {
    throw new MeshflowError("file_not_found", `${path}: cannot read the specialist's config file`, {
      cause,
      details: { file: path },
    });
  }
  let data: unknown;
  try {
    data = parseYaml(text) ?? {};
  } catch (error) {
    const first = error as { linePos?: Array<{ line: number; col: number }>; message?: string };
    const at = first.linePos?.[0];
    throw new MeshflowError(
      "specialist_invalid",
      `${path}${at ? `:${at.line}:${at.col}` : ""}: invalid YAML: ${String(first.message ?? error).split("\n")[0]}`,
      { details: { file: path } },
    );
  }
  if (!isPlainObject(data))
    throw new MeshflowError("specialist_invalid", `${path}: expected a mapping of settings at the top level`, {
      details: { file: path },
    });
  if (!schema) return data as C;
  const checked = checkConfig(schema, data);
  if (!checked.ok)
    throw new MeshflowError("specialist_invalid", `${path}: ${checked.issues.join("; ")}`, {
      details: { file: path, issues: checked.issues },
    });
  return checked.config;
}
