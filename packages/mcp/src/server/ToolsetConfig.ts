import { readFileSync } from "node:fs";
import { didYouMean, formatJsonPath, formatProblem, MeshflowError, type Problem, parseJsonText } from "@meshflow/core";
import { z } from "zod";
import { CLIENT_MODES, type ClientMode } from "./clientMode.js";

/** The toolset name that selects every toolset. */
export const ALL_TOOLSETS = "all";

const ToolsetListSchema = z.array(z.string().min(1, "a toolset name is not empty"));

/**
 * `toolset-config.json`: which toolsets load when `--toolsets` is not given, per client name
 * (`clientOverrides`, matched like `clientInfo.name`) or for everyone (`defaultToolsets`), and
 * client profiles that add to or replace the built-in ones (`clients`).
 */
const ToolsetConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  defaultToolsets: ToolsetListSchema.optional(),
  clientOverrides: z.record(z.string().min(1), ToolsetListSchema).optional(),
  clients: z
    .record(
      z.string().min(1),
      z.strictObject({
        mode: z.enum(CLIENT_MODES as [ClientMode, ...ClientMode[]]).optional(),
        annotationAware: z.boolean().optional(),
      }),
    )
    .optional(),
  /** The most tools the built-in default selection loads (default 40, Cursor's limit). */
  maxDefaultTools: z.number().int().positive().optional(),
});

/** A validated toolset-config.json. */
export type ToolsetConfig = z.infer<typeof ToolsetConfigSchema>;

function invalid(problems: Problem[]): MeshflowError {
  return new MeshflowError("toolset_config_invalid", problems.map(formatProblem).join("\n"), {
    details: { problems },
  });
}

/** Parses and validates a toolset config's text; every problem names the file and the JSON path. */
export function parseToolsetConfig(text: string, file: string): ToolsetConfig {
  const json = parseJsonText(text);
  if (!json.ok)
    throw invalid([
      {
        file,
        path: "$",
        message: `not valid JSON at line ${json.position.line}, column ${json.position.column}: ${json.message}`,
        severity: "error",
      },
    ]);
  const parsed = ToolsetConfigSchema.safeParse(json.value);
  if (!parsed.success)
    throw invalid(
      parsed.error.issues.map((issue) => ({
        file,
        path: formatJsonPath(issue.path),
        message: issue.message,
        severity: "error",
      })),
    );
  return parsed.data;
}

/** Reads and validates a toolset-config.json (`file_not_found` when it cannot be read). */
export function loadToolsetConfig(file: string): ToolsetConfig {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (cause) {
    throw new MeshflowError("file_not_found", `${file}: cannot read the toolset config`, { cause });
  }
  return parseToolsetConfig(text, file);
}

/**
 * Checks that every toolset a config names exists (or is `all`); the problems name the JSON path
 * and the closest known toolset.
 */
function checkToolsetNames(config: ToolsetConfig, known: readonly string[], file: string): Problem[] {
  const problems: Problem[] = [];
  const check = (names: readonly string[], path: (string | number)[]) =>
    names.forEach((name, index) => {
      if (name === ALL_TOOLSETS || known.includes(name)) return;
      problems.push({
        file,
        path: formatJsonPath([...path, index]),
        message: `unknown toolset "${name}"${didYouMean(name, known)}; known: ${known.join(", ")}, ${ALL_TOOLSETS}`,
        severity: "error",
      });
    });
  check(config.defaultToolsets ?? [], ["defaultToolsets"]);
  for (const [client, names] of Object.entries(config.clientOverrides ?? {})) check(names, ["clientOverrides", client]);
  return problems;
}

/** Throws `toolset_config_invalid` listing {@link checkToolsetNames}' problems, if any. */
export function assertToolsetNames(config: ToolsetConfig, known: readonly string[], file: string): void {
  const problems = checkToolsetNames(config, known, file);
  if (problems.length) throw invalid(problems);
}
