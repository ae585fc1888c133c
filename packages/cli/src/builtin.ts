import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import { packageFile, userCacheDir } from "@meshflow/core";

// builtin/ sits beside dist/ and src/ in the package (scripts/copy-builtin.mjs fills it at build).
const BUILTIN = packageFile(import.meta.url, "builtin");

/** The specialists @meshflow/cli ships (`builtin/agents`): the defaults of a project without its own. */
export const BUILTIN_AGENTS = join(BUILTIN, "agents");

/** The skills folder @meshflow/cli ships (`builtin/skills`): the base a project's `skills/` is merged over. */
export const BUILTIN_SKILLS = join(BUILTIN, "skills");

/** The PRD's JSON Schema @meshflow/cli ships (`builtin/prd.schema.json`): a new PRD's `$schema` points at it. */
const BUILTIN_PRD_SCHEMA = join(BUILTIN, "prd.schema.json");

/**
 * The `$schema` of a PRD in `prdDir`: the schema this `flow` ships, relative to the PRD (through the
 * project's node_modules once installed), so editors find it wherever the project is moved or cloned.
 */
export function prdSchemaRef(prdDir: string): string {
  return relative(prdDir, BUILTIN_PRD_SCHEMA).split(sep).join("/");
}

/** Where merged skills folders are kept: the user's cache, else a private folder of this process. */
function skillsCacheDir(): string {
  return userCacheDir("skills") ?? mkdtempSync(join(tmpdir(), "meshflow-skills-"));
}

function filesOf(root: string, dir = root, into = new Map<string, string>()): Map<string, string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) filesOf(root, path, into);
    else if (entry.isFile()) into.set(relative(root, path), path);
  }
  return into;
}

/**
 * A project's skills folder merged over the built-in one: every file of `project` replaces the built-in
 * file of the same relative path (`capabilities.yaml`, `aliases/<pack>.yaml`, `<skill>/SKILL.md`), the
 * other built-in files stay. The result is a folder named after its content's digest in the user's
 * cache (`userCacheDir("skills")`: mode 0700, refused when another user could write there — they would
 * choose which tools a specialist gets; else a private temp folder), written once (beside it, then
 * renamed), so concurrent commands share it safely.
 */
export function mergeSkillsFolders(builtin: string, project: string): string {
  const files = new Map([...filesOf(builtin), ...filesOf(project)]);
  const digest = createHash("sha256");
  for (const rel of [...files.keys()].sort()) {
    const path = files.get(rel) as string;
    digest.update(`${rel}\0`).update(readFileSync(path)).update("\0");
  }
  const target = join(skillsCacheDir(), digest.digest("hex").slice(0, 20));
  if (existsSync(target)) return target;
  const staging = mkdtempSync(`${target}.`);
  try {
    for (const [rel, path] of files) {
      mkdirSync(dirname(join(staging, rel)), { recursive: true });
      cpSync(path, join(staging, rel));
    }
    renameSync(staging, target);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    // Another process wrote the same content first.
    if (!existsSync(target)) throw error;
  }
  return target;
}
