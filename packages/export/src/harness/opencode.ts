import type { UniversalToolKind } from "@meshflow/core";
import type { AgentRender, HarnessWriter } from "./HarnessWriter.js";

// OpenCode's permission keys: `edit` gates write, edit and apply_patch; `todowrite` gates todowrite and todoread.
const NAMES: Readonly<Record<UniversalToolKind, string>> = {
  read: "read",
  write: "edit",
  edit: "edit",
  bash: "bash",
  grep: "grep",
  glob: "glob",
  webfetch: "webfetch",
  websearch: "websearch",
  todo: "todowrite",
  task: "task",
};

// OpenCode names an MCP tool <server>_<tool>, each part with characters outside [A-Za-z0-9_-] replaced by "_".
const sanitize = (name: string) => name.replace(/[^A-Za-z0-9_-]/g, "_");

/**
 * The agent's `permission` rules: deny everything first, then allow its tools (the last matching rule wins);
 * MCP tools annotated destructive ask first, as meshflow's confirmation would.
 */
function permission(agent: AgentRender): Record<string, string> {
  const rules: Record<string, string> = { "*": "deny" };
  for (const tool of agent.tools) rules[tool.name] = tool.destructive ? "ask" : "allow";
  return rules;
}

function mode(agent: AgentRender): { mode: unknown; rest: Record<string, unknown> } {
  const { mode: chosen, ...rest } = agent.extras;
  // Specialists are delegated to: a subagent unless the export config says otherwise.
  return { mode: chosen ?? "subagent", rest };
}

/**
 * OpenCode agents: `.opencode/agents/<name>.md` (frontmatter `description`, `mode`, `permission`; the file
 * name is the agent's name), or `agent.<name>` entries of `opencode.json` (with `prompt`).
 */
export const opencodeWriter: HarnessWriter = {
  harness: "opencode",
  title: "OpenCode",
  docs: [
    "https://opencode.ai/docs/agents/",
    "https://opencode.ai/docs/permissions/",
    "https://opencode.ai/docs/mcp-servers/",
    "https://opencode.ai/docs/config/",
  ],
  mcp: true,
  reservedKeys: ["description", "permission", "tools", "prompt"],
  universalName: (tool) => (tool.kind === "custom" ? tool.name : NAMES[tool.kind]),
  mcpName: (server, tool) => `${sanitize(server)}_${sanitize(tool)}`,
  agentFile: (name) => `.opencode/agents/${name}.md`,
  documentFile: (format) => (format === "json" ? "opencode.json" : ".opencode/agents.yaml"),
  documentPath: ["agent"],
  emptyDocument: { $schema: "https://opencode.ai/config.json" },
  jsonInPlace: true,
  notes: {
    md: "OpenCode loads .opencode/agents/*.md at start",
    json: "OpenCode reads the agent entries of opencode.json at start; its other keys were kept",
    yaml: "OpenCode does not read YAML; .opencode/agents.yaml holds the opencode.json agent entries for other tools",
  },
  markdown: (agent) => {
    const { mode: chosen, rest } = mode(agent);
    return {
      frontmatter: { description: agent.specialist.description, mode: chosen, ...rest, permission: permission(agent) },
      body: agent.specialist.instructions,
    };
  },
  entry: (agent) => {
    const { mode: chosen, rest } = mode(agent);
    return {
      description: agent.specialist.description,
      mode: chosen,
      prompt: agent.specialist.instructions,
      ...rest,
      permission: permission(agent),
    };
  },
};
