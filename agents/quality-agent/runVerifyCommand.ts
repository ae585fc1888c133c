import { resolve } from "node:path";
import type { ToolDescriptor, ToolResult, VerifyCommand } from "@meshflow/core";
import { fullText, structured, tailLines } from "../shared/toolResults.js";

/** Codes of a workspace server's refusals: the command never ran, so nothing was verified. */
const NOT_RUN = new Set([
  "command_not_allowed",
  "command_not_found",
  "path_traversal",
  "path_outside_root",
  "symlink_escape",
  "path_invalid",
  "not_found",
  "not_a_directory",
  "invalid_argument",
]);

/** What one verify command did through the code_execute tool. */
export type CommandOutcome =
  | { kind: "passed"; exitCode: number | null }
  | { kind: "failed"; exitCode: number | null; timedOut: boolean; tail: string }
  | { kind: "not_run"; code: string; message: string };

function properties(tool: ToolDescriptor): Record<string, unknown> {
  return (tool.inputSchema as { properties?: Record<string, unknown> }).properties ?? {};
}

/**
 * The arguments for a code_execute tool that takes argv (`command` + `args`, or `argv`), never a
 * shell string: a verify command is argv and stays argv. Undefined when the tool takes neither shape.
 */
export function commandArguments(
  tool: ToolDescriptor,
  verify: VerifyCommand,
  prdDir?: string,
): Record<string, unknown> | undefined {
  const props = properties(tool);
  const [command, ...args] = verify.run;
  let out: Record<string, unknown> | undefined;
  if ("command" in props && "args" in props) out = { command, args };
  else if ("argv" in props) out = { argv: verify.run };
  if (!out) return undefined;
  // A verify cwd is relative to the PRD's folder, a workspace server's to its root: an absolute path
  // (inside the root, which the server checks) means the same folder to both.
  if (verify.cwd !== undefined && "cwd" in props) out.cwd = prdDir ? resolve(prdDir, verify.cwd) : verify.cwd;
  if (verify.timeoutMs !== undefined && "timeoutMs" in props) out.timeoutMs = verify.timeoutMs;
  return out;
}

/** True when a tool takes argv in one of the shapes {@link commandArguments} knows. */
export function takesArgv(tool: ToolDescriptor): boolean {
  return commandArguments(tool, { run: ["true"] }) !== undefined;
}

function outputOf(result: ToolResult): string {
  const data = structured(result);
  const stream = (value: unknown) =>
    typeof (value as { text?: unknown } | undefined)?.text === "string" ? (value as { text: string }).text : "";
  const both = [stream(data.stdout), stream(data.stderr)].filter(Boolean).join("\n");
  return both || fullText(result);
}

/** Reads a code_execute result: passed, failed (it ran and said no), or not run at all. */
export function interpretResult(result: ToolResult, tail: number): CommandOutcome {
  const data = structured(result);
  const exitCode = typeof data.exitCode === "number" ? data.exitCode : null;
  const serverCode = typeof data.code === "string" ? data.code : undefined;
  // Its text without the code in front (the server's text starts with it; the code is said once).
  const notRun = (code: string): CommandOutcome => {
    const text = tailLines(fullText(result), 3);
    return { kind: "not_run", code, message: text.startsWith(`${code}: `) ? text.slice(code.length + 2) : text };
  };
  if (result.code) return notRun(result.code);
  if (result.isError && serverCode && NOT_RUN.has(serverCode)) return notRun(serverCode);
  if (result.isError || (exitCode !== null && exitCode !== 0))
    return { kind: "failed", exitCode, timedOut: data.timedOut === true, tail: tailLines(outputOf(result), tail) };
  return { kind: "passed", exitCode };
}
