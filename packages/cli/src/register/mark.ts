import type { MarkOptions } from "../commands/mark.js";
import { EXIT_CODES_HELP, flags, type Registrar, storeOption } from "./shared.js";

/** `flow mark <runId>`. */
export const registerMark: Registrar = (program, { output, setExit }) => {
  program
    .command("mark")
    .description(
      "write the passes: true marks of the stories a run passed into its PRD, from the run's record (those saves of the PRD dropped while it ran)",
    )
    .argument("<runId>", "the run whose passed stories are marked (see flow runs)")
    .addOption(storeOption())
    .option("--json", 'print {"runId", "prd", "passed", "marked": [ids], "unmarked": [ids], "reason"}')
    .addHelpText(
      "after",
      `
Only passes and notes of those stories change (each gets the note the run gives it; a story marked
already is left alone), written on the newest text of the PRD and checked until they stay. A run
that ends with marks missing exits 1 and names this command.
Exit 1 when a mark could not be written (the story is gone, or saves kept dropping it), with
run_locked while the run runs, or prd_busy while another run of the PRD does; exit 2 for an unknown run.
${EXIT_CODES_HELP}`,
    )
    .action(async (runId: string, options) => {
      const { markCommand } = await import("../commands/mark.js");
      setExit(await markCommand(runId, flags<MarkOptions>()(options), output));
    });
};
