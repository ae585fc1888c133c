/** The agent harnesses meshflow writes agent definitions for. */
export const AGENT_HARNESSES = ["claude-code", "opencode", "copilot"] as const;

/** Output formats: Markdown with YAML frontmatter (one file per agent), or one JSON / YAML document. */
export const OUTPUT_FORMATS = ["md", "json", "yaml"] as const;
