import type { InitOptions } from "../commands/init.js";
import { EXIT_CODES_HELP, flags, type Registrar } from "./shared.js";

/** `flow init`. */
export const registerInit: Registrar = (program, { output, setExit }) => {
  program
    .command("init")
    .description(
      "set a project up: .mcp.json, a first PRD prd/prd.json from package.json, .flow/ (and node_modules/) in .gitignore",
    )
    .option("-y, --yes", "ask nothing: take the answers from package.json (also off a terminal)")
    .option("--dir <folder>", "the project folder", ".")
    .option("--json", 'print {"dir", "files": [{"file", "status": "written"|"kept"|"updated"}], "next"}')
    .addHelpText(
      "after",
      `\nAn existing file is never overwritten: it is named as kept and left alone.\n${EXIT_CODES_HELP}`,
    )
    .action(async (options) => {
      const { initCommand } = await import("../commands/init.js");
      setExit(await initCommand(flags<InitOptions>()(options), output));
    });
};
