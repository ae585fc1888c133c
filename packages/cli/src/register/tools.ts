import { EXIT } from "../exitCodes.js";
import { EXIT_CODES_HELP, mcpConfigOption, type Registrar } from "./shared.js";

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `flow tools list` and `flow tools call`. */
export const registerTools: Registrar = (program, { output, setExit }) => {
  const tools = program
    .command("tools")
    .description("list the tools of the configured MCP servers, or call one through the middleware chain")
    .addHelpText("after", EXIT_CODES_HELP)
    .action(() => {
      // `flow tools` alone names no subcommand: a usage error, with the help on stderr.
      tools.outputHelp({ error: true });
      setExit(EXIT.usage);
    });
  tools
    .command("list")
    .description("every tool of every configured MCP server (a failing server is reported, the others listed)")
    .option("--server <name>", "only this server (repeatable)", collect)
    .option("--json", "print [{qualifiedName, server, name, description, annotations}]")
    .addOption(mcpConfigOption())
    .addHelpText("after", EXIT_CODES_HELP)
    .action(async (options) => {
      const { toolsListCommand } = await import("../commands/toolsList.js");
      setExit(await toolsListCommand(options, output));
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
      const { toolsCallCommand } = await import("../commands/toolsCall.js");
      setExit(await toolsCallCommand(name, options, output));
    });
};
