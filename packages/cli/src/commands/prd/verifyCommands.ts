import type { VerifyCommand } from "@meshflow/core";
import type { Guess } from "./Guess.js";
import { gateCommands } from "./gateCommands.js";
import type { QualityGate } from "./parseMarkdownPrd.js";

/**
 * Every story's `verify`: the project's test command (as `flow init` finds it), then the commands of
 * the Markdown's quality gates, each once, run from the project's folder (`cwd`, relative to the PRD's;
 * empty: the PRD's own). What was chosen, skipped or missing is pushed to `guesses`.
 */
export function verifyCommands(
  test: string[] | undefined,
  gates: readonly QualityGate[],
  cwd: string,
  guesses: Guess[],
): VerifyCommand[] {
  const { commands, skipped } = gateCommands(gates);
  const all: Array<{ run: string[]; name: string }> = [];
  if (test) all.push({ run: test, name: "tests" });
  for (const run of commands)
    if (!all.some((c) => c.run.join(" ") === run.join(" "))) all.push({ run, name: run.join(" ") });
  for (const { command, line } of skipped)
    guesses.push({
      line,
      message: `quality gate \`${command}\` needs a shell: kept as a criterion, not run by the gate`,
    });
  if (!all.length) {
    guesses.push({
      message: "no verify: package.json has no test script and the Markdown lists no quality gate commands",
    });
    return [];
  }
  const from = test ? "package.json's test script" : "the quality gates";
  guesses.push({
    message: `verify (every story): ${all.map((c) => `\`${c.run.join(" ")}\``).join(", ")}, from ${from}${test && commands.length ? " and the quality gates" : ""}`,
  });
  return all.map((c) => ({ name: c.name, run: c.run, ...(cwd ? { cwd } : {}) }));
}
