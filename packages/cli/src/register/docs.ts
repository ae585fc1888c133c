import type { DocsToolsOptions } from "../commands/docsTools.js";
import {
  agentsOption,
  classificationOptions,
  commandGroup,
  EXIT_CODES_HELP,
  flags,
  mcpConfigOption,
  type Registrar,
  routingOption,
} from "./shared.js";

/** `flow docs tools`. */
export const registerDocs: Registrar = (program, deps) => {
  const { output, setExit } = deps;
  const docs = commandGroup(program, "docs", "documentation generated from live data", deps);

  classificationOptions(
    docs
      .command("tools")
      .description("the tool inventory: coverage table, each specialist's and skill's tools, from live discovery")
      .option("--out <file>", "write the Markdown to this file (atomically) instead of stdout")
      .option("--check", "with --out: write nothing; exit 1 when the file differs from the live inventory")
      .option("--json", "print the inventory's data instead of Markdown")
      .option("--prd <file>", "specialists' servers from this PRD's steps (default: every server for every specialist)")
      .addOption(routingOption())
      .addOption(agentsOption())
      .addOption(mcpConfigOption()),
  )
    .addHelpText(
      "after",
      `\nThe coverage figures are those of flow tools coverage with the same options.\n${EXIT_CODES_HELP}`,
    )
    .action(async (options) => {
      const { docsToolsCommand } = await import("../commands/docsTools.js");
      setExit(await docsToolsCommand(flags<DocsToolsOptions>()(options), output));
    });
};
