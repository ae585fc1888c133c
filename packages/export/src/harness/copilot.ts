import { MeshflowError, type UniversalToolKind } from "@meshflow/core";
import type { AgentRender, HarnessWriter } from "./HarnessWriter.js";

// Copilot's tool aliases: `execute` runs shell commands, `search` covers Grep and Glob, `web` fetch and search.
const NAMES: Readonly<Record<UniversalToolKind, string>> = {
  read: "read",
  write: "edit",
  edit: "edit",
  bash: "execute",
  grep: "search",
  glob: "search",
  webfetch: "web",
  websearch: "web",
  todo: "todo",
  task: "agent",
};

/** GitHub's limit on a custom agent's prompt. */
const MAX_PROMPT = 30_000;

function prompt(agent: AgentRender): string {
  const text = agent.specialist.instructions;
  if (text.length > MAX_PROMPT)
    throw new MeshflowError(
      "export_invalid",
      `specialist "${agent.specialist.name}": its instructions (${agent.specialist.instructionsFrom}) have ` +
        `${text.length} characters; a Copilot custom agent's prompt is at most ${MAX_PROMPT}`,
      { details: { specialist: agent.specialist.name } },
    );
  return text;
}

/**
 * GitHub Copilot custom agents: `.github/agents/<name>.agent.md` (frontmatter `name`, `description`, `tools`
 * as a list of aliases and `<server>/<tool>` MCP names; `tools: []` is no tool at all).
 */
export const copilotWriter: HarnessWriter = {
  harness: "copilot",
  title: "GitHub Copilot",
  docs: [
    "https://docs.github.com/en/copilot/reference/custom-agents-configuration",
    "https://docs.github.com/en/copilot/how-tos/use-copilot-agents/cloud-agent/create-custom-agents",
    "https://code.visualstudio.com/docs/copilot/customization/custom-agents",
  ],
  mcp: true,
  reservedKeys: ["name", "description", "tools", "prompt"],
  universalName: (tool) => (tool.kind === "custom" ? tool.name : NAMES[tool.kind]),
  mcpName: (server, tool) => `${server}/${tool}`,
  agentFile: (name) => `.github/agents/${name}.agent.md`,
  documentFile: (format) => `.github/agents.${format}`,
  documentPath: [],
  emptyDocument: {},
  jsonInPlace: false,
  notes: {
    md: "Copilot (cloud agent, CLI, VS Code) reads .github/agents/*.agent.md from the default branch or the workspace",
    json: "Copilot reads only .agent.md files; .github/agents.json holds the same profiles for other tools",
    yaml: "Copilot reads only .agent.md files; .github/agents.yaml holds the same profiles for other tools",
  },
  markdown: (agent) => ({
    frontmatter: {
      name: agent.specialist.name,
      description: agent.specialist.description,
      tools: agent.tools.map((t) => t.name),
      ...agent.extras,
    },
    body: prompt(agent),
  }),
  entry: (agent) => ({
    name: agent.specialist.name,
    description: agent.specialist.description,
    tools: agent.tools.map((t) => t.name),
    prompt: prompt(agent),
    ...agent.extras,
  }),
};
