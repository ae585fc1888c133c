import { MeshflowError, type UniversalToolKind } from "@meshflow/core";
import type { AgentRender, HarnessWriter } from "./HarnessWriter.js";

const NAMES: Readonly<Record<UniversalToolKind, string>> = {
  read: "Read",
  write: "Write",
  edit: "Edit",
  bash: "Bash",
  grep: "Grep",
  glob: "Glob",
  webfetch: "WebFetch",
  websearch: "WebSearch",
  todo: "TodoWrite",
  task: "Agent",
};

// Claude Code names an MCP tool mcp__<server>__<tool>, each part with characters outside [A-Za-z0-9_-] replaced by "_".
const normalize = (name: string) => name.replace(/[^A-Za-z0-9_-]/g, "_");

function toolNames(agent: AgentRender): string[] {
  // Claude Code gives a subagent without `tools` every tool: an empty list cannot be written as "none".
  if (!agent.tools.length)
    throw new MeshflowError(
      "export_invalid",
      `specialist "${agent.specialist.name}" has no tools for claude-code after enrichment; Claude Code would give a ` +
        "subagent without a tools list every tool. Declare harnessTools, configure its MCP servers, or relax the enrichers",
      { details: { specialist: agent.specialist.name } },
    );
  return agent.tools.map((t) => t.name);
}

/**
 * Claude Code subagents: `.claude/agents/<name>.md` (frontmatter `name`, `description`, `tools` as a
 * comma-separated list, body = system prompt); JSON is the object `claude --agents` takes.
 */
export const claudeCodeWriter: HarnessWriter = {
  harness: "claude-code",
  title: "Claude Code",
  docs: [
    "https://code.claude.com/docs/en/sub-agents",
    "https://code.claude.com/docs/en/cli-reference",
    "https://code.claude.com/docs/en/mcp",
    "https://code.claude.com/docs/en/permissions",
    "https://code.claude.com/docs/en/settings#tools-available-to-claude",
  ],
  mcp: true,
  reservedKeys: ["name", "description", "tools", "prompt"],
  universalName: (tool) => (tool.kind === "custom" ? tool.name : NAMES[tool.kind]),
  mcpName: (server, tool) => `mcp__${normalize(server)}__${normalize(tool)}`,
  agentFile: (name) => `.claude/agents/${name}.md`,
  documentFile: (format) => `.claude/agents.${format}`,
  documentPath: [],
  emptyDocument: {},
  jsonInPlace: false,
  notes: {
    md: "Claude Code loads .claude/agents/*.md at start (or after /agents)",
    json: 'pass it to Claude Code with: claude --agents "$(cat .claude/agents.json)"',
    yaml: "Claude Code does not read YAML agent files; .claude/agents.yaml holds the --agents object for other tools",
  },
  markdown: (agent) => ({
    frontmatter: {
      name: agent.specialist.name,
      description: agent.specialist.description,
      tools: toolNames(agent).join(", "),
      ...agent.extras,
    },
    body: agent.specialist.instructions,
  }),
  entry: (agent) => ({
    description: agent.specialist.description,
    prompt: agent.specialist.instructions,
    tools: toolNames(agent),
    ...agent.extras,
  }),
};
