import type { UniversalTool } from "@meshflow/core";
import type { ToolMap } from "@meshflow/resolver";
import type { ExportSpecialist } from "../model/ExportSpecialist.js";
import { exportTool } from "../model/exportTool.js";
import type { AgentHarness } from "./AgentHarness.js";

/** A tool as one harness names it. */
export interface HarnessTool {
  /** The name the harness knows it by (`Bash`, `mcp__filesystem__read_file`, `filesystem/read_file`). */
  name: string;
  kind: "universal" | "custom" | "mcp";
  /** An MCP tool annotated `destructiveHint: true` (any of the entries behind this name). */
  destructive: boolean;
  /** The tool map keys behind this name: two universal tools can share one harness name. */
  keys: string[];
}

/** One agent, ready to be written for a harness. */
export interface AgentRender {
  specialist: ExportSpecialist;
  /** Its enriched tool map as the harness names the tools, in map order, each name once. */
  tools: readonly HarnessTool[];
  /** Extra keys for its definition (from the export config), e.g. `model`. */
  extras: Readonly<Record<string, unknown>>;
}

/** Writes agent definitions the way one harness reads them. See the package README for the sources. */
export interface HarnessWriter {
  readonly harness: AgentHarness;
  readonly title: string;
  /** The documentation pages its layout, keys and tool names follow. */
  readonly docs: readonly string[];
  /** Whether the harness can call MCP tools; without, MCP tools are stripped from every map. */
  readonly mcp: boolean;
  /** Keys the writer sets itself; an export config may not set them. */
  readonly reservedKeys: readonly string[];
  /** The harness's name for a universal tool (custom tools are written as they are). */
  universalName(tool: UniversalTool): string;
  /** The harness's name for the MCP tool `tool` of the server configured as `server`. */
  mcpName(server: string, tool: string): string;
  /** The Markdown file of one agent, relative to the output folder (POSIX separators). */
  agentFile(name: string): string;
  /** The JSON or YAML document holding every agent, relative to the output folder. */
  documentFile(format: "json" | "yaml"): string;
  /** Where the agents sit inside that document: `[]` for the top level, `["agent"]` for opencode.json. */
  readonly documentPath: readonly string[];
  /** The document a JSON file starts from when it does not exist yet. */
  readonly emptyDocument: Readonly<Record<string, unknown>>;
  /** True when the JSON document is the harness's own config file, edited in place (other keys and comments kept). */
  readonly jsonInPlace: boolean;
  /** How the harness gets each format's output (printed after an export). */
  readonly notes: Readonly<Record<"md" | "json" | "yaml", string>>;
  /** Frontmatter (ordered) and body of the agent's Markdown file. Throws `export_invalid` for what it cannot express. */
  markdown(agent: AgentRender): { frontmatter: Record<string, unknown>; body: string };
  /** The agent's entry in the JSON / YAML document. */
  entry(agent: AgentRender): Record<string, unknown>;
}

/** Names the enriched map's tools the way `writer`'s harness does, in map order, each name once. */
export function harnessTools(writer: HarnessWriter, toolMap: ToolMap): HarnessTool[] {
  const byName = new Map<string, HarnessTool>();
  for (const [key, entry] of toolMap) {
    const tool = exportTool(key, entry);
    const kind = tool.kind === "mcp" ? "mcp" : tool.tool.kind === "custom" ? "custom" : "universal";
    const name =
      tool.kind === "mcp"
        ? writer.mcpName(tool.server, tool.name)
        : tool.tool.kind === "custom"
          ? tool.tool.name
          : writer.universalName(tool.tool);
    const destructive = tool.kind === "mcp" && tool.descriptor?.annotations.destructiveHint === true;
    const known = byName.get(name);
    if (known) {
      known.keys.push(key);
      known.destructive ||= destructive;
    } else byName.set(name, { name, kind, destructive, keys: [key] });
  }
  return [...byName.values()];
}
