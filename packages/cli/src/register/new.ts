import { InvalidArgumentError } from "@commander-js/extra-typings";
import type { NewSpecialistOptions } from "../commands/newSpecialist.js";
import { EXIT_CODES_HELP, flags, type Registrar } from "./shared.js";

function step(value: string, previous: number[] = []): number[] {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 11) throw new InvalidArgumentError("expected a step number 1–11");
  return [...previous, n];
}

/** `flow new specialist <name>`. */
export const registerNew: Registrar = (program, { output, setExit }) => {
  const create = program.command("new").description("scaffold something new (see: flow new specialist --help)");
  create
    .command("specialist")
    .description("scaffold a specialist: agent.ts, README.md and a test that runs it against an in-memory MCP server")
    .argument("<name>", "lower-case kebab-case, e.g. docs-agent (also the folder's name)")
    .option("--dir <folder>", "the specialists folder to create it in", "agents")
    .option("--steps <n...>", "the steps it is meant for (1–11)", step)
    .option("--description <text>", "one line saying what it does")
    .option("--json", "print the created files as JSON")
    .addHelpText(
      "after",
      `
Then: npx vitest run <dir>/<name>    and route steps to it with --routing (e.g. {"steps": {"11": "<name>"}}).
${EXIT_CODES_HELP}`,
    )
    .action(async (name: string, options) => {
      const { newSpecialistCommand } = await import("../commands/newSpecialist.js");
      setExit(await newSpecialistCommand(name, flags<NewSpecialistOptions>()(options), output));
    });
};
