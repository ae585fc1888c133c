import { EXIT_CODES_HELP, type Registrar, storeOption } from "./shared.js";

/** `flow status [runId]`. */
export const registerStatus: Registrar = (program, { output, setExit }) => {
  program
    .command("status")
    .description("show a run: stories, steps, tool calls and refusals (default: the latest run)")
    .argument("[runId]", "the run (see flow runs)")
    .addOption(storeOption())
    .option("--json", 'print {"run", "stories": [{"id", "status", "steps"}]}')
    .addHelpText("after", EXIT_CODES_HELP)
    .action(async (runId: string | undefined, options) => {
      const { statusCommand } = await import("../commands/status.js");
      setExit(await statusCommand(runId, options, output));
    });
};
