import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { userCacheDir } from "../fs/userCacheDir.js";
import { sha256Hex } from "../json/canonicalJson.js";

type YamlModule = typeof import("yaml");

const require = createRequire(import.meta.url);
let loaded: YamlModule | undefined;

/** The `yaml` library, loaded on first use: a command whose YAML all comes from the cache never loads it. */
function yamlLibrary(): YamlModule {
  loaded ??= require("yaml") as YamlModule;
  return loaded;
}

/**
 * Where parsed YAML is cached: `FLOW_YAML_CACHE` (a folder, or `off`), else
 * `$XDG_CACHE_HOME/meshflow/yaml`, else `~/.cache/meshflow/yaml` (the user's own, mode 0700: what is
 * read there is taken as the settings it stands for). False without a usable folder.
 */
export function yamlCacheDir(env: NodeJS.ProcessEnv = process.env): string | false {
  const setting = env.FLOW_YAML_CACHE;
  if (setting === "off" || setting === "0" || setting === "false") return false;
  return userCacheDir("yaml", { env, ...(setting ? { dir: setting } : {}) }) ?? false;
}

let defaultDir: string | false | undefined;

/** This process's {@link yamlCacheDir}, looked up once. */
function defaultCacheDir(): string | false {
  defaultDir ??= yamlCacheDir();
  return defaultDir;
}

/** Plain JSON data (what a JSON file can hold, numbers finite): cached as JSON without a change. */
function isPlainJson(value: unknown): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isPlainJson);
  if (typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.values(value as Record<string, unknown>).every(isPlainJson);
}

/**
 * Parses YAML (or JSON) text as `yaml`'s `parse` does, and throws what it throws. The value of a text
 * parsed before is read from the cache ({@link yamlCacheDir}), keyed by the text's sha256: a shipped
 * data file costs a JSON read instead of a YAML parse on every start. Only plain JSON data is cached;
 * a cache that cannot be read or written is passed by.
 */
export function parseYaml(text: string, options: { cacheDir?: string | false } = {}): unknown {
  const dir = options.cacheDir ?? defaultCacheDir();
  if (!dir) return yamlLibrary().parse(text);
  const file = join(dir, `${sha256Hex(text)}.json`);
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    // Not cached yet (or unreadable): parsed below.
  }
  const value: unknown = yamlLibrary().parse(text);
  if (isPlainJson(value)) {
    const temp = `${file}.${process.pid}.tmp`;
    try {
      writeFileSync(temp, JSON.stringify(value), { mode: 0o600 });
      renameSync(temp, file);
    } catch {
      // A cache is a shortcut, never a requirement.
    }
  }
  return value;
}
