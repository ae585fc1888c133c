import { existsSync } from "node:fs";
import { join } from "node:path";
import { type AliasMap, EMPTY_ALIAS_MAP, loadAliasMaps } from "../aliases/AliasMap.js";
import {
  type CapabilityCatalog,
  EMPTY_CAPABILITY_CATALOG,
  loadCapabilityCatalog,
} from "../capabilities/CapabilityCatalog.js";
import { type CapabilityOverrides, loadCapabilityOverrides } from "../capabilities/CapabilityOverrides.js";
import { loadSkills, type Skill } from "./Skill.js";

/** What a skills folder holds, as runs, `flow tools` and `flow serve` read it. */
export interface SkillsFolder {
  /** `capabilities.yaml`. */
  catalog: CapabilityCatalog;
  /** `capability-overrides.yaml`, when there is one. */
  overrides: CapabilityOverrides | undefined;
  /** `<name>/SKILL.md`. */
  skills: Skill[];
  /** `aliases/*.yaml|json`, empty without the folder. */
  aliases: AliasMap;
}

/**
 * Loads a skills folder: the capability catalog (required, unless `optionalCatalog`: then a folder
 * without one classifies nothing), the optional overrides, the skills and the optional alias maps.
 */
export function loadSkillsFolder(dir: string, options: { optionalCatalog?: boolean } = {}): SkillsFolder {
  const catalogFile = join(dir, "capabilities.yaml");
  const catalog =
    options.optionalCatalog && !existsSync(catalogFile) ? EMPTY_CAPABILITY_CATALOG : loadCapabilityCatalog(catalogFile);
  const overrides = loadCapabilityOverrides(join(dir, "capability-overrides.yaml"), catalog, { optional: true });
  const skills = loadSkills(dir, { catalog });
  const aliasDir = join(dir, "aliases");
  const aliases = existsSync(aliasDir) ? loadAliasMaps(aliasDir) : EMPTY_ALIAS_MAP;
  return { catalog, overrides, skills, aliases };
}
