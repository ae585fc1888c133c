import { readFileSync } from "node:fs";
import { Command, CommanderError, Option } from "commander";
import { EXIT, type ExitCode, exitCodeFor } from "./exitCodes.js";
import { type Output, processOutput } from "./output.js";

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

const EXIT_CODES_HELP = `
Exit codes:
  0  done          1  the work failed (invalid input, failed or blocked story)
  2  usage error   3  environment error (server or Redis unreachable)`;

/** Builds the `flow` program. Command implementations are imported lazily so `flow --help` stays fast. */
export function buildProgram(output: Output, setExit: (code: ExitCode) => void): Command {
  const program = new Command("flow")
    .description("meshflow: route PRD story steps to specialist agents over MCP tools")
    .version(version(), "-V, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .addHelpText("after", EXIT_CODES_HELP)
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride()
    .configureOutput({ writeOut: (s) => output.out(s), writeErr: (s) => output.err(s) });

  const routingOption = () =>
    new Option("--routing <file>", "step → specialist routing file merged over the default (YAML or JSON)").env(
      "FLOW_ROUTING",
    );
  const mcpConfigOption = () =>
    new Option("--mcp-config <file>", "MCP config (.mcp.json format); default FLOW_MCP_CONFIG, then ./.mcp.json");

  program
    .command("validate")
    .description("check a PRD: schema, unique ids, step keys, routing; lists every problem")
    .argument("<prd.json>", "the PRD file (never modified)")
    .option("--json", 'print {"valid", "errors": [{"path", "message"}]}')
    .addOption(routingOption())
    .addHelpText("after", EXIT_CODES_HELP)
    .action(async (file: string, options) => {
      const { validateCommand } = await import("./commands/validate.js");
      setExit(await validateCommand(file, options, output));
    });

  program
    .command("plan")
    .description("show the preflight: story → step → specialist → MCP servers, in run order")
    .argument("<prd.json>", "the PRD file (never modified)")
    .option("--json", 'print {"stories": [{"id", "skipped", "steps"}], "problems"}')
    .addOption(mcpConfigOption())
    .addOption(routingOption())
    .addHelpText("after", EXIT_CODES_HELP)
    .action(async (file: string, options) => {
      const { planCommand } = await import("./commands/plan.js");
      setExit(await planCommand(file, options, output));
    });

  for (const command of program.commands) command.exitOverride().configureOutput(program.configureOutput());
  return program;
}

/** Runs `flow` with `argv` (as in `process.argv`) and resolves to its exit code. Never calls `process.exit`. */
export async function main(argv: readonly string[], output: Output = processOutput): Promise<ExitCode> {
  let code: ExitCode = EXIT.ok;
  const program = buildProgram(output, (c) => {
    code = c;
  });
  if (argv.length <= 2) {
    program.outputHelp({ error: true });
    return EXIT.usage;
  }
  try {
    await program.parseAsync([...argv]);
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      const quiet = ["commander.helpDisplayed", "commander.help", "commander.version"];
      return quiet.includes(error.code) ? EXIT.ok : EXIT.usage;
    }
    const { toMeshflowError } = await import("@meshflow/core");
    const failure = toMeshflowError(error);
    const wantsJson = argv.includes("--json");
    if (wantsJson) output.out(JSON.stringify({ error: { code: failure.code, message: failure.message } }, null, 2));
    output.err(`flow: ${failure.message}`);
    if (failure.code === "internal" && error instanceof Error && error.stack && process.env.FLOW_DEBUG)
      output.err(error.stack);
    return exitCodeFor(failure.code);
  }
}
