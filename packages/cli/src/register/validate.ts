import type { ValidateOptions } from "../commands/validate.js";
import {
  agentsOption,
  EXIT_CODES_HELP,
  flags,
  maxPrdBytesOption,
  maxPrdStoriesOption,
  type Registrar,
  routingOption,
} from "./shared.js";

/** `flow validate <prd.json>`. */
export const registerValidate: Registrar = (program, { output, setExit }) => {
  program
    .command("validate")
    .description("check a PRD: schema, unique ids, step keys, routing; lists every problem")
    .argument("<prd.json>", "the PRD file (never modified)")
    .option("--json", 'print {"valid", "errors": [{"path", "message"}]}')
    .addOption(routingOption())
    .addOption(agentsOption())
    .addOption(maxPrdStoriesOption())
    .addOption(maxPrdBytesOption())
    .addHelpText("after", EXIT_CODES_HELP)
    .action(async (file: string, options) => {
      const { validateCommand } = await import("../commands/validate.js");
      setExit(await validateCommand(file, flags<ValidateOptions>()(options), output));
    });
};
