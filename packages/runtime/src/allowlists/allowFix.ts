import type { McpConfig } from "@meshflow/core";
import { oneLine } from "../workflow/oneLine.js";

/** The value of `--<flag> <value>` or `--<flag>=<value>` in `args`, or undefined. */
function flagValue(args: readonly string[], flag: string): string | undefined {
  for (const [i, arg] of args.entries()) {
    if (arg === flag) return args[i + 1];
    if (arg.startsWith(`${flag}=`)) return arg.slice(flag.length + 1);
  }
  return undefined;
}

/**
 * What to change so MCP server `server` allows `executable`, said for meshflow's workspace server: a
 * server started with `--config <file>` and no `--allow` takes its list from that file (an `--allow` added
 * to its args would replace the list, not extend it); any other stdio server gets `"--allow", "<exe>"`
 * added to its args (repeated `--allow` flags add up).
 *
 * @example
 * allowFix("workspace", "npm", mcpConfig)
 * // 'add "--allow", "npm" to the args of MCP server "workspace" in /app/.mcp.json'
 */
export function allowFix(server: string, executable: string, mcpConfig: Pick<McpConfig, "file" | "servers">): string {
  const exe = JSON.stringify(executable);
  const config = mcpConfig.servers.get(server);
  const where = mcpConfig.file ?? "the MCP config";
  if (config?.transport !== "stdio") return `allow ${exe} on MCP server "${server}"`;
  const file = flagValue(config.args, "--config");
  const allows = config.args.some((arg) => arg === "--allow" || arg.startsWith("--allow="));
  if (file !== undefined && !allows)
    return `add ${exe} to "allow" in ${file} (the --config file of MCP server "${server}" in ${where})`;
  return `add "--allow", ${exe} to the args of MCP server "${server}" in ${where}`;
}

/** Entries of a stated allowlist a message names before it counts the rest. */
const SHOWN = 20;

/**
 * A tool's stated allowlist as a message says it: at most {@link SHOWN} entries, each on one line
 * without control characters (a server states it: its text is not trusted), `none` when empty.
 */
export function allowedText(allow: readonly string[]): string {
  if (!allow.length) return "none";
  const shown = allow.slice(0, SHOWN).map((entry) => oneLine(entry).slice(0, 200));
  return `${shown.join(", ")}${allow.length > SHOWN ? `, and ${allow.length - SHOWN} more` : ""}`;
}
