import { hasErrors, loadPrdFile } from "@meshflow/core";
import { EXIT, type ExitCode } from "../exitCodes.js";
import { type Output, plural, printJson } from "../output.js";
import { printProblems } from "../printProblems.js";
import { commandRouting, knownSpecialists } from "./prdInput.js";

/** Options of `flow validate`. */
export interface ValidateOptions {
  json?: boolean;
  routing?: string;
  /** Specialist folders (`--agents`); default `./agents` over the built-in specialists. */
  agents?: string[] | string;
}

/** `flow validate <prd.json>`: every problem of a PRD, located; never writes the file. */
export async function validateCommand(file: string, options: ValidateOptions, output: Output): Promise<ExitCode> {
  const routing = commandRouting(options);
  const specialists = await knownSpecialists(options.agents);
  const loaded = await loadPrdFile(file, { routing, specialists });
  const valid = !hasErrors(loaded.problems);
  if (options.json) {
    printJson(output, {
      valid,
      errors: loaded.problems.map(({ file: f, path, message, severity }) => ({
        file: f,
        path,
        message,
        severity,
      })),
    });
  } else if (valid && loaded.prd) {
    printProblems(output, loaded.problems);
    const steps = loaded.prd.userStories.reduce((n, s) => n + s.mavenSteps.length, 0);
    output.out(
      `${file}: valid (${plural(loaded.prd.userStories.length, "story", "stories")}, ${plural(steps, "step")})`,
    );
  } else {
    printProblems(output, loaded.problems);
    output.err(`${file}: invalid (${plural(loaded.problems.length, "problem")})`);
  }
  return valid ? EXIT.ok : EXIT.failure;
}
