// Fixtures of the export package's unit tests: tools shaped like the real filesystem and memory servers'.
import type { ToolAnnotations, ToolDescriptor } from "@meshflow/core";
import { buildCapabilityCatalog, type CapabilityIndex, classifyTools, type Skill } from "@meshflow/resolver";
import type { ToolUniverse } from "../model/baseToolMap.js";
import type { ExportSpecialist } from "../model/ExportSpecialist.js";

/** A tool descriptor of `server`. */
export function tool(server: string, name: string, annotations: ToolAnnotations): ToolDescriptor {
  return {
    qualifiedName: `${server}__${name}`,
    server,
    name,
    description: `${name} of ${server}`,
    inputSchema: { type: "object" },
    annotations,
  };
}

const READ = { readOnlyHint: true };
const WRITE = { readOnlyHint: false, destructiveHint: true };

/** Two servers, one with a dot in its name (harnesses sanitise it differently). */
export const TOOLS: readonly ToolDescriptor[] = [
  tool("filesystem", "read_text_file", READ),
  tool("filesystem", "write_file", WRITE),
  tool("kg.store", "read_graph", READ),
  tool("kg.store", "create_entities", { readOnlyHint: false, destructiveHint: false }),
];

const catalog = buildCapabilityCatalog({
  version: 1,
  capabilities: {
    filesystem_read: { description: "read files", tools: ["read_text_file"] },
    filesystem_write: { description: "write files", tools: ["write_file"] },
    memory_read: { description: "read the graph", tools: ["read_graph"] },
    memory_write: { description: "write the graph", tools: ["create_entities"] },
  },
});

/** A skill granting `permissions`. */
function skill(name: string, permissions: string[], specialists?: string[]): Skill {
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

/** The fixture's skills: `recall` is attached to the quality agent by its frontmatter. */
export const SKILLS: readonly Skill[] = [skill("recall", ["memory_read"], ["quality-agent"])];

/** The classification of {@link TOOLS}. */
export async function fixtureIndex(tools: readonly ToolDescriptor[] = TOOLS): Promise<CapabilityIndex> {
  return classifyTools(tools, { catalog });
}

/** The universe of {@link TOOLS}. */
export async function fixtureUniverse(): Promise<ToolUniverse> {
  return { tools: TOOLS, skills: SKILLS, index: await fixtureIndex() };
}

/** An exported specialist with instructions. */
export function specialist(name: string, extra: Partial<ExportSpecialist> = {}): ExportSpecialist {
  return {
    name,
    description: `The ${name}: does its steps.`,
    instructions: `# ${name}\n\nDo the step, report evidence.`,
    instructionsFrom: `agents/${name}/instructions.md`,
    ...extra,
  };
}
