import type { ToolDescriptor } from "@meshflow/core";
import type { CapabilityIndex } from "../capabilities/CapabilityIndex.js";
import type { Skill } from "./Skill.js";

/** A tool a skill grants, with the permission (capability) that granted it. */
export interface SkillTool {
  qualifiedName: string;
  tool: ToolDescriptor;
  skill: string;
  /** The skill's first permission, in the skill's order, that the tool has. */
  permission: string;
}

/**
 * The tools of `tools` whose capabilities match the skill's permissions, each once, ordered by permission
 * (the skill's order) then by tool order. A pure in-memory lookup in the capability index.
 *
 * @example
 * resolveSkillTools(testing, tools, index).map((t) => `${t.qualifiedName} (${t.permission})`);
 */
export function resolveSkillTools(skill: Skill, tools: readonly ToolDescriptor[], index: CapabilityIndex): SkillTool[] {
  const granted: SkillTool[] = [];
  const seen = new Set<string>();
  const byPermission = new Map<string, ToolDescriptor[]>();
  const wanted = new Set(skill.permissions);
  for (const tool of tools)
    for (const capability of index.capabilitiesOf(tool.qualifiedName))
      if (wanted.has(capability)) {
        const list = byPermission.get(capability);
        if (list) list.push(tool);
        else byPermission.set(capability, [tool]);
      }
  for (const permission of skill.permissions)
    for (const tool of byPermission.get(permission) ?? []) {
      if (seen.has(tool.qualifiedName)) continue;
      seen.add(tool.qualifiedName);
      granted.push({ qualifiedName: tool.qualifiedName, tool, skill: skill.name, permission });
    }
  return granted;
}
