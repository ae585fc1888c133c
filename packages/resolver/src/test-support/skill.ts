import type { Skill } from "../skills/Skill.js";

/** A skill as `loadSkills` would give it, from its name, permissions and (optionally) the specialists it lists. */
export function skill(name: string, permissions: string[], specialists?: string[]): Skill {
  return {
    name,
    description: `${name} skill`,
    permissions,
    ...(specialists ? { specialists } : {}),
    body: "",
    file: `skills/${name}/SKILL.md`,
    metadata: {},
  };
}
