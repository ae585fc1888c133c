import type { ToolDescriptor } from "@meshflow/core";
import type { CapabilityIndex } from "../capabilities/CapabilityIndex.js";
import { resolveSkillTools } from "../skills/resolveSkillTools.js";
import { findSkill, type Skill } from "../skills/Skill.js";
import type { ToolEnricher, ToolMapEntry } from "./ToolEnricher.js";

/** What {@link skillsEnricher} draws from. */
export interface SkillsEnricherOptions {
  skills: readonly Skill[];
  index: CapabilityIndex;
  /** The universe the skills grant tools from (the step's servers' tools). */
  tools: readonly ToolDescriptor[];
}

/**
 * Adds the tools a specialist's declared skills grant (source `skill:<skill>/<permission>`); tools already
 * in the map keep their entry. An unknown skill name throws `skill_unknown` naming the specialist.
 */
export function skillsEnricher(options: SkillsEnricherOptions): ToolEnricher {
  return (_harness, specialist, toolMap) => {
    if (!specialist.skills?.length) return toolMap;
    const next = new Map(toolMap);
    for (const name of specialist.skills) {
      const skill = findSkill(options.skills, name, `specialist ${specialist.name}`);
      for (const granted of resolveSkillTools(skill, options.tools, options.index)) {
        if (next.has(granted.qualifiedName)) continue;
        const entry: ToolMapEntry = {
          qualifiedName: granted.qualifiedName,
          tool: granted.tool,
          source: `skill:${granted.skill}/${granted.permission}`,
        };
        next.set(granted.qualifiedName, entry);
      }
    }
    return next;
  };
}
