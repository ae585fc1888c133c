import { Option } from "@commander-js/extra-typings";
import type { RunCommandOptions } from "../commands/run.js";
import {
  agentsOption,
  callsPerMinuteOption,
  cassetteOptions,
  confirmDestructiveOption,
  executorOptions,
  flags,
  mcpConfigOption,
  modelOptions,
  type Registrar,
  RUN_EXIT_CODES_HELP,
  routingOption,
  skillsOption,
  storeOption,
} from "./shared.js";

/** `flow run <prd.json>`. */
export const registerRun: Registrar = (program, { output, setExit }) => {
  cassetteOptions(
    modelOptions(
      executorOptions(
        program
          .command("run")
          .description("run a PRD: every story step through its specialist, then the completion gate")
          .argument("<prd.json>", "the PRD file (only the completion gate writes to it: passes and notes)")
          .addOption(mcpConfigOption())
          .addOption(routingOption())
          .addOption(agentsOption())
          .addOption(storeOption())
          .addOption(skillsOption()),
      ),
    ),
  )
    .option("--story <id...>", "run only these stories")
    .option("--fail-fast", "start no further story after one fails or is blocked")
    .option(
      "--dry-run",
      "resolve every scripted call against the discovered repertoires and size each model request; call nothing",
    )
    .option("--json", "print the run events as NDJSON on stdout")
    .addOption(confirmDestructiveOption())
    .addOption(callsPerMinuteOption("the run's guard"))
    .addOption(new Option("--run-id <id>", "the new run's id (default: time-based)"))
    .addHelpText("after", `\nResume an interrupted run with: flow resume <runId>\n${RUN_EXIT_CODES_HELP}`)
    .action(async (file, options) => {
      const { runCommand } = await import("../commands/run.js");
      setExit(await runCommand(file, flags<RunCommandOptions>()(options), output));
    });
};
