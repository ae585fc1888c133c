import type { DiagnoseCommandOptions } from "../commands/diagnose.js";
import { EXIT_CODES_HELP, flags, mcpConfigOption, type Registrar } from "./shared.js";

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `flow diagnose`. */
export const registerDiagnose: Registrar = (program, { output, setExit }) => {
  program
    .command("diagnose")
    .description("check every MCP server (reachable, tools, version), the guard and the metrics; prints no secret")
    .option("--server <name>", "only this server (repeatable)", collect)
    .option("--json", "print {mcpConfig, servers, invalidServers, guard, metrics}")
    .addOption(mcpConfigOption())
    .addHelpText("after", EXIT_CODES_HELP)
    .action(async (options) => {
      const { diagnoseCommand } = await import("../commands/diagnose.js");
      setExit(await diagnoseCommand(flags<DiagnoseCommandOptions>()(options), output));
    });
};
