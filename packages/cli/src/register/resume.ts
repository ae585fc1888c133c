import type { RunFlags } from "../commands/runDriver.js";
import { cassetteOptions, modelOptions } from "./modelOptions.js";
import {
  agentsOption,
  confirmDestructiveOption,
  executorOptions,
  flags,
  maxMessageBytesOption,
  maxPrdBytesOption,
  maxPrdStoriesOption,
  mcpConfigOption,
  type Registrar,
  RUN_EXIT_CODES_HELP,
  RUN_V8_HELP,
  resumedCallsPerMinuteOption,
  routingOption,
  skillsOption,
  storeOption,
  waitForApprovalOption,
} from "./shared.js";

/** `flow resume <runId>`. */
export const registerResume: Registrar = (program, { output, setExit }) => {
  cassetteOptions(
    modelOptions(
      executorOptions(
        program
          .command("resume")
          .description("continue an interrupted run: finished steps are skipped, journaled calls are not run again")
          .argument("<runId>", "the run to continue (see flow runs)")
          .addOption(mcpConfigOption().default(undefined, "the one the run was started with"))
          .addOption(routingOption())
          .addOption(agentsOption())
          .addOption(storeOption())
          .addOption(maxMessageBytesOption())
          .addOption(maxPrdStoriesOption())
          .addOption(maxPrdBytesOption())
          .addOption(skillsOption()),
      ),
    ),
  )
    .option("--json", "print the run events as NDJSON on stdout")
    .addOption(confirmDestructiveOption())
    .addOption(waitForApprovalOption())
    .addOption(resumedCallsPerMinuteOption("the run's guard"))
    .addHelpText("after", `${RUN_EXIT_CODES_HELP}\n\n${RUN_V8_HELP}`)
    .action(async (runId, options, command) => {
      const resumed = flags<RunFlags>()(options);
      // Before the run's modules load: its servers start meanwhile (see prestartForResume).
      const started = (await import("../commands/prestart.js")).prestartForResume(runId, {
        store: resumed.store ?? ".flow",
        mcpConfig: resumed.mcpConfig,
      });
      try {
        const { resumeCommand } = await import("../commands/run.js");
        // Options given now override the run's recorded ones; defaults do not.
        const given = (name: string) =>
          command.getOptionValueSource(name) === "cli" || command.getOptionValueSource(name) === "env";
        setExit(await resumeCommand(runId, resumed, output, given));
      } finally {
        await started?.close();
      }
    });
};
