import { type Command, Option } from "commander";
import { EXIT_CODES_HELP, mcpConfigOption, type Registrar, routingOption } from "./shared.js";

function toolsOptions(command: Command): Command {
  return command
    .addOption(mcpConfigOption())
    .addOption(
      new Option(
        "--skills <dir>",
        "skills folder: capabilities.yaml, capability-overrides.yaml, aliases/, <skill>/SKILL.md",
      )
        .env("FLOW_SKILLS")
        .default("skills"),
    )
    .addOption(new Option("--redis <url>", "keep tool classifications in this Redis").env("FLOW_REDIS_URL"))
    .addOption(
      new Option("--redis-prefix <prefix>", "key prefix in that Redis").env("FLOW_REDIS_PREFIX").default("meshflow:"),
    )
    .option(
      "--cache <file>",
      "classification cache file when no Redis is configured",
      ".flow/cache/classifications.json",
    )
    .addHelpText("after", EXIT_CODES_HELP);
}

/** `flow tools resolve|classify|coverage`. */
export const registerTools: Registrar = (program, { output, setExit }) => {
  const tools = program
    .command("tools")
    .description("inspect the tools of the MCP servers: name resolution, capabilities, coverage")
    .addHelpText("after", EXIT_CODES_HELP);

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
    setExit(await resolveCommand(name, options, output));
  });

  toolsOptions(
    tools
      .command("classify")
      .description("classify every discovered tool into capabilities (rule, cache or override)")
      .option("--server <name...>", "only these servers")
      .option("--json", 'print {"tools": [{qualifiedName, capabilities, source, reasons}], "stats", "cache"}'),
  ).action(async (options) => {
    const { classifyCommand } = await import("../commands/tools/classify.js");
    setExit(await classifyCommand(options, output));
  });

  toolsOptions(
    tools
      .command("coverage")
      .description("which tools each specialist can reach, mapped vs available, and the unreachable ones")
      .option("--prd <file>", "specialists' servers from this PRD's steps (default: every server for every specialist)")
      .option("--min <percent>", "exit 1 when fewer than this percentage of tools are reachable")
      .option("--json", 'print {"tools", "reachable", "percent", "specialists", "servers", "unreachable"}')
      .addOption(routingOption()),
  ).action(async (options) => {
    const { coverageCommand } = await import("../commands/tools/coverage.js");
    setExit(await coverageCommand(options, output));
  });
};
