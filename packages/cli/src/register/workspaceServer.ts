import { InvalidArgumentError } from "@commander-js/extra-typings";
import type { WorkspaceServerCommandOptions } from "../commands/workspaceServer.js";
import { EXIT_CODES_HELP, flags, maxMessageBytesOption, type Registrar } from "./shared.js";

function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n <= 0)
    throw new InvalidArgumentError("expected a whole number > 0");
  return n;
}

/** `flow workspace-server --root <dir>`. */
export const registerWorkspaceServer: Registrar = (program, { output, setExit }) => {
  program
    .command("workspace-server")
    .description("serve a workspace folder as an MCP server over stdio: allowlisted commands, files, git")
    .requiredOption("--root <dir>", "the workspace folder; every path is confined to it")
    .option("--allow <exe...>", "executables run_command may start (replaces the config file's list)")
    .option("--config <file>", "config file (YAML or JSON): allow, timeoutMs, maxOutputBytes, maxReadBytes, maxFiles")
    .option("--timeout-ms <n>", "kill a command's process tree after n ms (default 60000)", positiveInt)
    .option("--max-output-bytes <n>", "bytes kept of each of stdout and stderr (default 65536)", positiveInt)
    .addOption(
      maxMessageBytesOption(
        "largest request read from the client over stdio; a larger one is answered with a result_too_large error and the server reads on",
      ),
    )
    .addHelpText(
      "after",
      `
stdout carries MCP messages only; one status line goes to stderr. Flags override the config file.
Example .mcp.json entry:
  "workspace": { "command": "npx", "args": ["flow", "workspace-server", "--root", ".", "--allow", "npm", "node"] }
${EXIT_CODES_HELP}`,
    )
    .action(async (options) => {
      const { workspaceServerCommand } = await import("../commands/workspaceServer.js");
      setExit(await workspaceServerCommand(flags<WorkspaceServerCommandOptions>()(options), output));
    });
};
