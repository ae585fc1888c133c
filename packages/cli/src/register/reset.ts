import { EXIT_CODES_HELP, type Registrar, storeOption } from "./shared.js";

/** `flow reset <prd> [--story id…] [--archive]`. */
export const registerReset: Registrar = (program, { output, setExit }) => {
  program
    .command("reset")
    .description(
      "set stories of a PRD back to not passed: passes false, notes cleared (every story by default); only those values change",
    )
    .argument("<prd>", "the PRD file (one file: a folder is refused, exit 2, naming its PRDs)")
    .option("--story <id...>", "reset only these stories (default: every story)")
    .option(
      "--archive",
      "also move the PRD's progress log (<name>.progress.md) to archive/ beside the PRD (default: kept)",
    )
    .addOption(storeOption())
    .option(
      "--json",
      'print {"prd", "reset": [ids], "changed", "archived"} (every id; the text names up to 10, then counts them)',
    )
    .addHelpText(
      "after",
      `\nRefused with prd_busy (exit 1) while a run of the PRD holds its lock; an unknown story id is exit 2.\n${EXIT_CODES_HELP}`,
    )
    .action(async (file: string, options) => {
      const { resetCommand } = await import("../commands/reset.js");
      setExit(await resetCommand(file, options, output));
    });
};
