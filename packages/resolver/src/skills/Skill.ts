import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { MeshflowError, type Problem, suggest } from "@meshflow/core";
import { z } from "zod";
import type { CapabilityCatalog } from "../capabilities/CapabilityCatalog.js";
import { dataProblem, issueMessage, readText, throwProblems } from "../internal/dataFile.js";
import { splitFrontMatter } from "../internal/frontMatter.js";

const KEBAB = /^[a-z][a-z0-9-]*$/;

/** The YAML frontmatter of a SKILL.md. Unknown keys are kept in {@link Skill.metadata}. */
const SkillFrontmatterSchema = z.looseObject({
  name: z.string().regex(KEBAB, "a skill name is lower-case kebab-case"),
  description: z.string().min(1),
  /** Capability ids of the catalog: the skill gets every tool with one of them. */
  permissions: z.array(z.string().min(1)).min(1),
  /** The specialists this skill is for (informational for the runtime; `flow tools coverage` attaches it to them). */
  specialists: z.array(z.string().regex(KEBAB, "a specialist name is lower-case kebab-case")).optional(),
});

/** A parsed `skills/<name>/SKILL.md`. */
export interface Skill {
  name: string;
  description: string;
  permissions: readonly string[];
  specialists?: readonly string[];
  /** The Markdown body (instructions for the specialist). */
  body: string;
  file: string;
  metadata: Readonly<Record<string, unknown>>;
}

/** The skills folder's default location, relative to the working directory. */
const DEFAULT_SKILLS_DIR = "skills";

/** Parses one SKILL.md's text; with a catalog, every permission must be one of its capabilities. */
function parseSkill(text: string, file: string, catalog?: CapabilityCatalog): Skill {
  let parsed: { data: unknown; body: string };
  try {
    parsed = splitFrontMatter(text);
  } catch (cause) {
    throw new MeshflowError("skill_invalid", `${file}: $: frontmatter is not valid YAML: ${String(cause)}`, { cause });
  }
  const result = SkillFrontmatterSchema.safeParse(parsed.data, { reportInput: true });
  if (!result.success)
    throwProblems(
      "skill_invalid",
      result.error.issues.map((issue) => dataProblem(file, issue.path, issueMessage(issue))),
    );
  const { name, description, permissions, specialists, ...metadata } = result.data;
  if (catalog) {
    const known = [...catalog.capabilities.keys()];
    const problems: Problem[] = [];
    permissions.forEach((permission, i) => {
      if (catalog.capabilities.has(permission)) return;
      const hint = suggest(permission, known);
      problems.push(
        dataProblem(
          file,
          ["permissions", i],
          `unknown capability "${permission}"${hint.length ? ` (did you mean "${hint.join('", "')}"?)` : ""}; ` +
            `${catalog.file} defines ${known.join(", ")}`,
        ),
      );
    });
    if (problems.length) throwProblems("skill_invalid", problems);
  }
  return {
    name,
    description,
    permissions,
    ...(specialists ? { specialists } : {}),
    body: parsed.body.trim(),
    file,
    metadata,
  };
}

/**
 * Loads every `<dir>/<name>/SKILL.md`, sorted by folder name. A skill's `name` must equal its folder's;
 * with a catalog, its permissions are checked against the catalog's capabilities.
 *
 * @example
 * const skills = loadSkills("skills", { catalog });
 * skills.find((s) => s.name === "testing")?.permissions; // ["filesystem_read", "test_run", …]
 */
export function loadSkills(dir: string = DEFAULT_SKILLS_DIR, options: { catalog?: CapabilityCatalog } = {}): Skill[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new MeshflowError("file_not_found", `${dir}: skills folder does not exist`, { details: { file: dir } });
  const skills: Skill[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const file = join(dir, entry, "SKILL.md");
    if (!existsSync(file)) continue;
    const skill = parseSkill(readText(file, "skill"), file, options.catalog);
    if (skill.name !== entry)
      throwProblems("skill_invalid", [
        dataProblem(file, ["name"], `the skill is named "${skill.name}" but its folder is "${entry}"; make them equal`),
      ]);
    skills.push(skill);
  }
  return skills;
}

/** Finds a skill by name, or throws `skill_unknown` with a suggestion and where it was needed. */
export function findSkill(skills: readonly Skill[], name: string, neededBy?: string): Skill {
  const skill = skills.find((s) => s.name === name);
  if (skill) return skill;
  const names = skills.map((s) => s.name);
  const hint = suggest(name, names);
  throw new MeshflowError(
    "skill_unknown",
    `unknown skill "${name}"${neededBy ? ` (declared by ${neededBy})` : ""}` +
      `${hint.length ? `; did you mean "${hint.join('", "')}"?` : ""}; known skills: ${names.join(", ") || "none"}`,
    { details: { skill: name, known: names } },
  );
}

/** The skills meant for a specialist by their frontmatter's `specialists` list. */
export function skillsForSpecialist(skills: readonly Skill[], specialist: string): Skill[] {
  return skills.filter((s) => s.specialists?.includes(specialist));
}

/**
 * The specialist as its repertoire is computed: its own skills when it declares some, else the skills whose
 * frontmatter lists it (the runtime's rule), else unchanged (every tool of its servers).
 */
export function withAttachedSkills<T extends { name: string; skills?: readonly string[] }>(
  specialist: T,
  skills: readonly Skill[],
): T {
  if (specialist.skills?.length) return specialist;
  const attached = skillsForSpecialist(skills, specialist.name).map((s) => s.name);
  return attached.length ? { ...specialist, skills: attached } : specialist;
}
