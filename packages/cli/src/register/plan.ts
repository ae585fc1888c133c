import { Option } from "@commander-js/extra-typings";
import type { PlanOptions } from "../commands/plan.js";
import {
  agentsOption,
  approvalsOption,
  approveOption,
  EXIT_CODES_HELP,
  flags,
  maxPrdBytesOption,
  maxPrdStoriesOption,
  mcpConfigOption,
  positiveInt,
  type Registrar,
  routingOption,
  skillsOption,
} from "./shared.js";

/** `flow plan <prd.json | folder>`. */
export const registerPlan: Registrar = (program, { output, setExit }) => {
  // The steps' purposes live in @meshflow/core's data; it is loaded only when `flow plan` is what runs,
  // so every other command (and `flow --help`) starts without it.
  let steps = "";
  program.hook("preSubcommand", async (_program, sub) => {
    if (sub.name() !== "plan") return;
    steps = `\n${(await import("../commands/stepPurposesHelp.js")).stepPurposesHelp()}\n`;
  });
  program
    .command("plan")
    .description("show the preflight: story → step (and what it is for) → specialist → MCP servers, in run order")
    .argument(
      "<prd.json | folder>",
      "the PRD file (never modified), or a folder: each of its prd-*.json and *.prd.json, in the order flow run takes them",
    )
    .option(
      "--json",
      'print {"stories": [{"id", "skipped", "steps": [{"step", "purpose", "specialist", "servers"}]}], "problems"}; of a folder, {"folder", "prds": [those]}',
    )
    .option(
      "--discover",
      "start the steps' MCP servers: each step's repertoire (its specialist's tools after skills and enrichers: count, names, schema bytes) and how many tools were left out",
    )
    .option(
      "--harness <name>",
      "show the steps as `flow run --harness <name>` would work them (claude-code, opencode, codex); else the story's harness, the PRD's",
    )
    .addOption(
      new Option(
        "--parallel <n>",
        "show the waves of flow run --parallel n: which stories start together (were each to take as long as the others) (default 1: no waves shown)",
      ).argParser(positiveInt("--parallel")),
    )
    .addOption(
      new Option("--parallel-order <order>", "with --parallel: band (default) or deps, as flow run takes it").choices([
        "band",
        "deps",
      ] as const),
    )
    .addOption(mcpConfigOption())
    .addOption(routingOption())
    .addOption(agentsOption())
    .addOption(maxPrdStoriesOption())
    .addOption(maxPrdBytesOption())
    .addOption(skillsOption())
    .addOption(approveOption())
    .addOption(approvalsOption())
    .addHelpText("after", () => `${steps}${EXIT_CODES_HELP}`)
    .action(async (file: string, options) => {
      const { planCommand } = await import("../commands/plan.js");
      setExit(await planCommand(file, flags<PlanOptions>()(options), output));
    });
};
