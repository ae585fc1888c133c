import { existsSync, readdirSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import type { Problem } from "@meshflow/core";
import { z } from "zod";
import { dataProblem, readDataFile, throwProblems } from "../internal/dataFile.js";

const NAME = z.string().min(1).regex(/^\S+$/, "a tool name has no spaces");

/**
 * One alias-map file (YAML or JSON): the names one specialist pack constructs, mapped to the MCP tool
 * names they mean. Without `specialist` the entries are shared by every specialist.
 *
 * @example
 * specialist: quant-risk-analyst
 * prefixes: [quant_risk_]
 * aliases:
 *   quant_risk_var_calculation: tail_risk_analysis   # semantic: stripping the prefix would be wrong
 *   fs_read: filesystem__read_text_file              # a qualified target pins the server
 */
const AliasFileSchema = z.strictObject({
  specialist: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/, "a specialist name is lower-case kebab-case")
    .optional(),
  description: z.string().optional(),
  prefixes: z.array(z.string().min(1).regex(/^\S+$/, "a prefix has no spaces")).default([]),
  aliases: z.record(NAME, NAME).default({}),
});

/** The parsed content of one alias-map file. */
export type AliasFile = z.infer<typeof AliasFileSchema>;

/** One alias: `from` (the name a specialist uses) means `to` (a bare or qualified MCP tool name). */
export interface AliasEntry {
  from: string;
  to: string;
  /** The file it came from. */
  file: string;
  /** The specialist pack it belongs to; undefined for shared entries. */
  specialist?: string;
}

/** Alias maps merged from any number of files: shared entries and per-specialist entries and prefixes. */
export interface AliasMap {
  readonly shared: ReadonlyMap<string, AliasEntry>;
  readonly bySpecialist: ReadonlyMap<string, ReadonlyMap<string, AliasEntry>>;
  /** Domain prefixes every specialist may strip. */
  readonly sharedPrefixes: readonly string[];
  readonly prefixesBySpecialist: ReadonlyMap<string, readonly string[]>;
  /** The files read, in load order. */
  readonly sources: readonly string[];
}

/** An alias map with no entries. */
export const EMPTY_ALIAS_MAP: AliasMap = {
  shared: new Map(),
  bySpecialist: new Map(),
  sharedPrefixes: [],
  prefixesBySpecialist: new Map(),
  sources: [],
};

const EXTENSIONS = new Set([".yaml", ".yml", ".json"]);

function expand(paths: readonly string[]): string[] {
  const files: string[] = [];
  for (const path of paths) {
    if (existsSync(path) && statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort())
        if (EXTENSIONS.has(extname(name).toLowerCase())) files.push(join(path, name));
    } else files.push(path);
  }
  return files;
}

/**
 * Builds one {@link AliasMap} from parsed files. A name mapped to two different targets in the same scope
 * (shared, or one specialist) is an error naming both files.
 */
export function mergeAliasFiles(files: readonly { file: string; content: AliasFile }[]): AliasMap {
  const shared = new Map<string, AliasEntry>();
  const bySpecialist = new Map<string, Map<string, AliasEntry>>();
  const sharedPrefixes: string[] = [];
  const prefixesBySpecialist = new Map<string, string[]>();
  const problems: Problem[] = [];
  for (const { file, content } of files) {
    const { specialist } = content;
    let scope = shared;
    let prefixes = sharedPrefixes;
    if (specialist) {
      scope = bySpecialist.get(specialist) ?? new Map();
      bySpecialist.set(specialist, scope);
      prefixes = prefixesBySpecialist.get(specialist) ?? [];
      prefixesBySpecialist.set(specialist, prefixes);
    }
    for (const prefix of content.prefixes) if (!prefixes.includes(prefix)) prefixes.push(prefix);
    for (const [from, to] of Object.entries(content.aliases)) {
      const earlier = scope.get(from);
      if (earlier && earlier.to !== to) {
        problems.push(
          dataProblem(
            file,
            ["aliases", from],
            `"${from}" maps to "${to}" here but to "${earlier.to}" in ${earlier.file}` +
              ` (${specialist ? `specialist ${specialist}` : "shared entries"}); keep one`,
          ),
        );
        continue;
      }
      scope.set(from, specialist ? { from, to, file, specialist } : { from, to, file });
    }
  }
  if (problems.length) throwProblems("aliases_invalid", problems);
  return { shared, bySpecialist, sharedPrefixes, prefixesBySpecialist, sources: files.map((f) => f.file) };
}

/**
 * Loads alias maps from files and/or folders (every `*.yaml`, `*.yml`, `*.json` of a folder, sorted),
 * validated with {@link AliasFileSchema}.
 *
 * @example
 * const aliases = loadAliasMaps("skills/aliases");
 * aliases.bySpecialist.get("quant-risk-analyst")?.get("quant_risk_var_calculation")?.to; // "tail_risk_analysis"
 */
export function loadAliasMaps(paths: string | readonly string[]): AliasMap {
  const list = typeof paths === "string" ? [paths] : paths;
  return mergeAliasFiles(
    expand(list).map((file) => ({
      file,
      content: readDataFile(file, AliasFileSchema, "aliases_invalid", "alias map"),
    })),
  );
}
