// The CLI reference (docs/cli.md) built from the `flow` binary's own --help of every command and
// subcommand, so the reference says what the commands say. Used by scripts/write-cli-docs.mjs and by
// the test that fails when docs/cli.md is stale (tests/cli/cliReference.e2e.test.ts).
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The built binary of this checkout. */
export const FLOW_BIN = fileURLToPath(new URL("../packages/cli/bin/flow.js", import.meta.url));
/** Where the reference is written, relative to the repository root. */
export const CLI_REFERENCE_PATH = "docs/cli.md";

/** `flow <args> --help` as a pipe reads it: no colour, commander's default width. */
async function help(args) {
  const env = { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" };
  delete env.COLUMNS;
  return (await run(process.execPath, [FLOW_BIN, ...args, "--help"], { encoding: "utf8", env })).stdout;
}

/** The command names a help text lists under `Commands:` (not `help`). */
function commandsOf(text) {
  const section = text.split(/^Commands:$/m)[1]?.split(/^\S/m)[0] ?? "";
  return section
    .split("\n")
    .map((line) => /^ {2}([a-z][a-z-]*)/.exec(line)?.[1])
    .filter((name) => name && name !== "help");
}

/**
 * The Markdown of the reference: the top-level help, then every command's (groups' subcommands nested).
 * The helps are asked for side by side; the order of the page is the order `flow --help` lists them.
 */
export async function cliReference() {
  const top = await help([]);
  const commands = await Promise.all(
    commandsOf(top).map(async (command) => {
      const text = await help([command]);
      const subs = await Promise.all(commandsOf(text).map(async (sub) => [sub, await help([command, sub])]));
      return { command, text, subs };
    }),
  );
  const parts = [
    "# `flow` command reference",
    "",
    "Generated from each command's own `--help` by `npm run docs:cli` (a test fails when this file is stale).",
    "What the commands are for, with examples, is in the [README](../README.md) and the other pages of `docs/`.",
    "",
    "```text",
    top.trimEnd(),
    "```",
  ];
  for (const { command, text, subs } of commands) {
    parts.push("", `## flow ${command}`, "", "```text", text.trimEnd(), "```");
    for (const [sub, subText] of subs)
      parts.push("", `### flow ${command} ${sub}`, "", "```text", subText.trimEnd(), "```");
  }
  return `${parts.join("\n")}\n`;
}
