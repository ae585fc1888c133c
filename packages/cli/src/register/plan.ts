import type { PlanOptions } from "../commands/plan.js";
import {
  agentsOption,
  EXIT_CODES_HELP,
  flags,
  maxPrdBytesOption,
  maxPrdStoriesOption,
  mcpConfigOption,
  type Registrar,
  routingOption,
  skillsOption,
} from "./shared.js";

/** `flow plan <prd.json>`. */
export const registerPlan: Registrar = (program, { output, setExit }) => {
  program
    .command("plan")
    .description("show the preflight: story → step → specialist → MCP servers, in run order")
    .argument("<prd.json>", "the PRD file (never modified)")
    .option("--json", 'print {"stories": [{"id", "skipped", "steps"}], "problems"}')
    .option(
      "--discover",
      "start the steps' MCP servers: each step's repertoire (its specialist's tools after skills and enrichers: count, names, schema bytes) and how many tools were left out",
    )
    .option(
      "--harness <name>",
      "show the steps as `flow run --harness <name>` would work them (claude-code, opencode, codex); else the story's harness, the PRD's",
    )
    .addOption(mcpConfigOption())
    .addOption(routingOption())
    .addOption(agentsOption())
    .addOption(maxPrdStoriesOption())
    .addOption(maxPrdBytesOption())
    .addOption(skillsOption())
    .addHelpText("after", EXIT_CODES_HELP)
    .action(async (file: string, options) => {
      const { planCommand } = await import("../commands/plan.js");
      setExit(await planCommand(file, flags<PlanOptions>()(options), output));
    });
};
