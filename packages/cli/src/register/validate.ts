import type { ValidateOptions } from "../commands/validate.js";
import {
  agentsOption,
  EXIT_CODES_HELP,
  flags,
  maxPrdBytesOption,
  maxPrdStoriesOption,
  mcpConfigOption,
  type Registrar,
  routingOption,
} from "./shared.js";

/** `flow validate <prd.json | folder>`. */
export const registerValidate: Registrar = (program, { output, setExit }) => {
  program
    .command("validate")
    .description(
      "check a PRD: schema, unique ids, step keys, routing, and the MCP servers it names when an MCP config is found; lists every problem",
    )
    .argument(
      "<prd.json | folder>",
      "the PRD file (never modified), or a folder: each of its prd-*.json and *.prd.json, in the order flow run takes them",
    )
    .option(
      "--json",
      'print {"valid", "errors": [{"file", "path", "message", "severity"}]}; of a folder, {"valid", "folder", "prds": [{"file", "valid", "errors"}]}',
    )
    .addOption(mcpConfigOption())
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
