import type { RunsOptions } from "../commands/runs.js";
import { EXIT_CODES_HELP, flags, type Registrar, storeOption } from "./shared.js";

/** `flow runs`. */
export const registerRuns: Registrar = (program, { output, setExit }) => {
  program
    .command("runs")
    .description("list the runs in the run store, newest first")
    .addOption(storeOption())
    .option("--json", 'print {"runs": [{"runId", "status", "prd", "counts", …}]}')
    .addHelpText("after", EXIT_CODES_HELP)
    .action(async (options) => {
      const { runsCommand } = await import("../commands/runs.js");
      setExit(await runsCommand(flags<RunsOptions>()(options), output));
    });
};
