import { Option } from "@commander-js/extra-typings";
import { AGENT_HARNESSES, OUTPUT_FORMATS } from "@meshflow/export/names";
import type { ExportAgentsOptions } from "../commands/exportAgents.js";
import {
  agentsOption,
  commandGroup,
  EXIT_CODES_HELP,
  flags,
  mcpConfigOption,
  type Registrar,
  routingOption,
  skillsOption,
} from "./shared.js";

const LAYOUT_HELP = `
Where each harness reads its agents (relative to --out):
  claude-code  md: .claude/agents/<name>.md    json: .claude/agents.json (claude --agents)   yaml: .claude/agents.yaml
  opencode     md: .opencode/agents/<name>.md  json: opencode.json "agent" entries (edited in place)
               yaml: .opencode/agents.yaml
  copilot      md: .github/agents/<name>.agent.md    json / yaml: .github/agents.json / .yaml (for other tools)
Tool maps: the specialist's harnessTools and its MCP repertoire (skills, read-only rule), then the export
config's enrichers (--config, FLOW_EXPORT_CONFIG, ./flow-export.yaml), then the read-only rule again.
MCP tools are named as each harness does: mcp__<server>__<tool>, <server>_<tool>, <server>/<tool>.`;

/** `flow export agents`. */
export const registerExport: Registrar = (program, deps) => {
  const { output, setExit } = deps;
  const exportCommand = commandGroup(program, "export", "write specialists out for other agent harnesses", deps);

  exportCommand
    .command("agents")
    .description("write each specialist as an agent definition of a harness, with its enriched tool map")
    .addOption(
      new Option(
        "--harness <name>",
        `the harness: ${AGENT_HARNESSES.slice(0, -1).join(", ")} or ${AGENT_HARNESSES.at(-1)}`,
      )
        .choices(AGENT_HARNESSES)
        .makeOptionMandatory(),
    )
    .addOption(
      new Option("--format <format>", "md (YAML frontmatter), json or yaml").choices(OUTPUT_FORMATS).default("md"),
    )
    .option("--out <dir>", "the project folder the harness's files go under", ".")
    .option("--specialist <name...>", "only these specialists (other agents' files are left alone)")
    .addOption(mcpConfigOption())
    .option("--no-mcp", "leave MCP tools out (a harness set up without the MCP servers)")
    .option("--prd <file>", "each specialist's MCP tools from its steps' servers in this PRD (default: every server)")
    .addOption(routingOption())
    .addOption(agentsOption())
    .addOption(skillsOption())
    .addOption(
      new Option("--config <file>", "export config: enrichers and extra keys per harness").env("FLOW_EXPORT_CONFIG"),
    )
    .option("--cache <file>", "classification cache file", ".flow/cache/classifications.json")
    .option("--check", "write nothing; exit 1 when the files on disk differ from what would be written")
    .option("--json", 'print {"files": [{file, status, agents}], "agents": [{name, file, tools}], "upToDate"}')
    .addHelpText("after", `${LAYOUT_HELP}\n${EXIT_CODES_HELP}`)
    .action(async (options) => {
      const { exportAgentsCommand } = await import("../commands/exportAgents.js");
      setExit(await exportAgentsCommand(flags<ExportAgentsOptions>()(options), output));
    });
};
