import type { ArgumentPolicy } from "../ArgumentPolicy.js";
import { WorkspaceToolError } from "../WorkspaceToolError.js";
import type { WorkspaceRoot } from "./WorkspaceRoot.js";

/** The denied flag `arg` spells, if any (exactly, with `=value`, abbreviated, or a short flag with its value attached). */
function deniedBy(arg: string, denied: readonly string[]): string | undefined {
  const name = arg.split("=", 1)[0] ?? arg;
  for (const flag of denied) {
    if (name === flag) return flag;
    if (flag.startsWith("--") && name.startsWith("--") && name.length >= 4 && flag.startsWith(name)) return flag;
    if (flag.length === 2 && !flag.startsWith("--") && arg.startsWith(flag) && !arg.startsWith("--")) return flag;
  }
  return undefined;
}

/** Refuses `args` for `command` with `argument_not_allowed` when they break its policy; checks paths where asked. */
export async function checkArguments(
  command: string,
  args: readonly string[],
  policy: ArgumentPolicy | undefined,
  root: WorkspaceRoot,
): Promise<void> {
  if (!policy) return;
  const refuse = (why: string, details: Record<string, unknown>): never => {
    throw new WorkspaceToolError(
      "argument_not_allowed",
      `${command} ${why}; allowed subcommands: ${policy.subcommands?.join(", ") ?? "any"}; denied flags: ${policy.deniedFlags?.join(" ") || "none"}`,
      { command, ...details, subcommands: policy.subcommands ?? null, deniedFlags: policy.deniedFlags ?? [] },
    );
  };
  const subcommands = policy.subcommands;
  if (subcommands) {
    const first = args[0];
    if (first === undefined || !subcommands.includes(first))
      refuse(`subcommand ${JSON.stringify(first ?? "")} is not allowed (it must be the first argument)`, {
        argument: first ?? null,
      });
  }
  for (const arg of args) {
    const flag = deniedBy(arg, policy.deniedFlags ?? []);
    if (flag) refuse(`flag ${JSON.stringify(arg)} is denied (${flag})`, { argument: arg, flag });
  }
  const confining = (policy.pathsInsideRootWith ?? []).find((flag) => args.some((a) => a === flag));
  if (confining) for (const arg of args.slice(subcommands ? 1 : 0)) if (!arg.startsWith("-")) await root.resolve(arg); // throws path_outside_root / path_traversal / symlink_escape
}
