import path from "node:path";
import { didYouMean } from "@meshflow/core";
import { type ArgumentPolicy, DEFAULT_ARGUMENT_POLICIES } from "../ArgumentPolicy.js";
import { WorkspaceToolError } from "../WorkspaceToolError.js";

/**
 * The executables `run_command` may start. A bare name (`node`) allows exactly that name, looked up on
 * PATH; an entry with a slash is a path, resolved against the workspace root when relative, and matches
 * a command naming the same file. Nothing else runs: no shell, no partial or case-insensitive matches.
 */
export class AllowList {
  readonly entries: readonly string[];
  private readonly byPath = new Map<string, string>();

  constructor(
    entries: readonly string[],
    private readonly root: string,
    private readonly policies: Readonly<Record<string, ArgumentPolicy>> = {},
  ) {
    this.entries = [...new Set(entries)];
    for (const entry of this.entries) if (hasSeparator(entry)) this.byPath.set(path.resolve(root, entry), entry);
  }

  /** The argument policy of an allowed `command`: the config's for its entry or file name, else the built-in one. */
  policyFor(command: string): ArgumentPolicy | undefined {
    const name = path.basename(command);
    return this.policies[command] ?? this.policies[name] ?? DEFAULT_ARGUMENT_POLICIES[name];
  }

  /** The file to start for `command`, or a `command_not_allowed` refusal naming the allowlist. */
  resolve(command: string): string {
    if (hasSeparator(command)) {
      const file = path.resolve(this.root, command);
      if (this.byPath.has(file)) return file;
    } else if (this.entries.includes(command)) {
      return command;
    }
    const allowed = this.entries.length ? this.entries.join(", ") : "none";
    const hint = this.entries.length
      ? didYouMean(command, this.entries)
      : `; the server was started without --allow or an allow list in its config (to allow it, add "--allow", ${JSON.stringify(command)} to the server's args in the MCP config, e.g. .mcp.json)`;
    throw new WorkspaceToolError(
      "command_not_allowed",
      `command ${JSON.stringify(command)} is not on the allowlist (allowed: ${allowed})${hint}`,
      { command, allow: this.entries },
    );
  }
}

function hasSeparator(name: string): boolean {
  return name.includes("/") || name.includes(path.sep);
}
