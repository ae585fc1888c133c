import type { Command, OptionValues } from "@commander-js/extra-typings";
import type { ToolsCallOptions } from "../commands/tools/call.js";
import type { ClassifyCommandOptions } from "../commands/tools/classify.js";
import type { CoverageCommandOptions } from "../commands/tools/coverage.js";
import type { ToolsListOptions } from "../commands/tools/list.js";
import type { ResolveCommandOptions } from "../commands/tools/resolve.js";
import {
  agentsOption,
  classificationOptions,
  commandGroup,
  EXIT_CODES_HELP,
  flags,
  mcpConfigOption,
  type Registrar,
  routingOption,
} from "./shared.js";

const collect = (value: string, previous: string[] = []) => [...previous, value];

function toolsOptions<Args extends unknown[], Opts extends OptionValues, G extends OptionValues>(
  command: Command<Args, Opts, G>,
) {
  return classificationOptions(command.addOption(mcpConfigOption())).addHelpText("after", EXIT_CODES_HELP);
}

/** `flow tools list|call|resolve|classify|coverage`. */
export const registerTools: Registrar = (program, deps) => {
  const { output, setExit } = deps;
  const tools = commandGroup(
    program,
    "tools",
    "the tools of the MCP servers: list, call, name resolution, capabilities, coverage",
    deps,
  );

  tools
    .command("list")
    .description("every tool of every configured MCP server (a failing server is reported, the others listed)")
    .option("--server <name>", "only this server (repeatable)", collect)
    .option("--json", "print [{qualifiedName, server, name, description, annotations}]")
    .addOption(mcpConfigOption())
    .addHelpText("after", EXIT_CODES_HELP)
    .action(async (options) => {
      const { toolsListCommand } = await import("../commands/tools/list.js");
      setExit(await toolsListCommand(flags<ToolsListOptions>()(options), output));
    });

  tools
    .command("call")
    .description("call <server>__<tool> through metrics → guard → policy → confirmation → validation")
    .argument("<server__tool>", "qualified tool name, e.g. everything__echo")
    .option("--args <json>", "arguments as a JSON object", "{}")
    .option("--yes", "confirm a destructive tool (destructiveHint) for this call")
    .option("--timeout <ms>", "cancel the call after this many milliseconds (default 60000)")
    .option("--json", "print the whole result {content, structuredContent?, isError?, code?}")
    .addOption(mcpConfigOption())
    .addHelpText("after", EXIT_CODES_HELP)
    .action(async (name: string, options) => {
      const { toolsCallCommand } = await import("../commands/tools/call.js");
      setExit(await toolsCallCommand(name, flags<ToolsCallOptions>()(options), output));
    });

  toolsOptions(
    tools
      .command("resolve")
      .description("show which real tool a name means (exact → alias → prefix → capability), or the closest candidates")
      .argument("<name>", "a tool name as a specialist would write it")
      .option("--specialist <name>", "resolve as this specialist (its alias pack, prefixes and skills)")
      .option("--prd <file>", "resolve in the repertoire of one PRD step (with --story and --step)")
      .option("--story <id>", "the story of --prd")
      .option("--step <n>", "the step of --story; its specialist comes from the routing unless --specialist")
      .option("--json", 'print {"resolution": {input, qualifiedName, server, tool, tier, via, warnings}} or {"error"}')
      .addOption(routingOption()),
  ).action(async (name: string, options) => {
    const { resolveCommand } = await import("../commands/tools/resolve.js");
    setExit(await resolveCommand(name, flags<ResolveCommandOptions>()(options), output));
  });

  toolsOptions(
    tools
      .command("classify")
      .description("classify every discovered tool into capabilities (rule, cache or override)")
      .option("--server <name...>", "only these servers")
      .option("--json", 'print {"tools": [{qualifiedName, capabilities, source, reasons}], "stats", "cache"}'),
  ).action(async (options) => {
    const { classifyCommand } = await import("../commands/tools/classify.js");
    setExit(await classifyCommand(flags<ClassifyCommandOptions>()(options), output));
  });

  toolsOptions(
    tools
      .command("coverage")
      .description("which tools each specialist can reach, mapped vs available, and the unreachable ones")
      .option("--prd <file>", "specialists' servers from this PRD's steps (default: every server for every specialist)")
      .option("--min <percent>", "exit 1 when fewer than this percentage of tools are reachable")
      .option("--json", 'print {"tools", "reachable", "percent", "specialists", "servers", "unreachable"}')
      .addOption(routingOption())
      .addOption(agentsOption()),
  ).action(async (options) => {
    const { coverageCommand } = await import("../commands/tools/coverage.js");
    setExit(await coverageCommand(flags<CoverageCommandOptions>()(options), output));
  });
};
