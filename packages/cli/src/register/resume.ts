import {
  agentsOption,
  callsPerMinuteOption,
  confirmDestructiveOption,
  executorOptions,
  mcpConfigOption,
  type Registrar,
  RUN_EXIT_CODES_HELP,
  routingOption,
  skillsOption,
  storeOption,
} from "./shared.js";

/** `flow resume <runId>`. */
export const registerResume: Registrar = (program, { output, setExit }) => {
  executorOptions(
    program
      .command("resume")
      .description("continue an interrupted run: finished steps are skipped, journaled calls are not run again")
      .argument("<runId>", "the run to continue (see flow runs)")
      .addOption(mcpConfigOption().default(undefined, "the one the run was started with"))
      .addOption(routingOption())
      .addOption(agentsOption())
      .addOption(storeOption())
      .addOption(skillsOption()),
  )
    .option("--json", "print the run events as NDJSON on stdout")
    .addOption(confirmDestructiveOption())
    .addOption(callsPerMinuteOption("the run's guard", true))
    .addHelpText("after", RUN_EXIT_CODES_HELP)
    .action(async (runId: string, options) => {
      const { resumeCommand } = await import("../commands/run.js");
      setExit(await resumeCommand(runId, options, output));
    });
};
