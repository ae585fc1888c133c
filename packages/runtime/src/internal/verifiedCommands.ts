import { isAbsolute, resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import type { Story, ToolResult, VerifyCommand } from "@meshflow/core";
import type { CallWrite, ProducedCall } from "./toolCall.js";

/**
 * One of a story's `verify` commands that passed through a `code_execute` call of a step, as the
 * runtime checked it (the call was made by the step through the runtime, its arguments are the
 * command's argv and cwd, its result says exit 0). The completion gate may reuse it.
 */
export interface VerifiedCommand {
  /** The command's place in `story.verify`. */
  index: number;
  name: string;
  /** The call that ran it: its sequence number in the step, idempotency key and tool. */
  seq: number;
  key: string;
  tool: string;
}

/** The command a code_execute call's arguments describe: `command` + `args`, or `argv`; its `cwd`. */
function commandOf(args: Record<string, unknown>): { run: unknown[]; cwd: string } | undefined {
  const cwd = typeof args.cwd === "string" ? args.cwd : ".";
  if (Array.isArray(args.argv)) return { run: args.argv, cwd };
  if (typeof args.command === "string" && (args.args === undefined || Array.isArray(args.args)))
    return { run: [args.command, ...((args.args as unknown[] | undefined) ?? [])], cwd };
  return undefined;
}

const sameCwd = (a: string, b: string) => a.replace(/^\.\/?|\/$/g, "") === b.replace(/^\.\/?|\/$/g, "");

/**
 * The call's cwd is the command's: as written, or (an absolute path a specialist resolved against
 * `prdDir`, for a tool whose paths are relative to another root) the same folder.
 */
const cwdMatches = (ran: string, wanted: string, prdDir: string | undefined) =>
  sameCwd(ran, wanted) || (prdDir !== undefined && isAbsolute(ran) && resolve(ran) === resolve(prdDir, wanted));

/**
 * Checks a claim that `command` passed through `result`: the result must be one this step's calls
 * returned (`produced`), of a `code_execute` tool, without error and with exit code 0 when it reports
 * one, for exactly the command's argv and cwd, and the command must be one of the story's. Returns the
 * record, or why the claim is refused.
 */
export function checkVerified(
  story: Story,
  command: VerifyCommand,
  result: ToolResult,
  produced: WeakMap<ToolResult, ProducedCall>,
  capabilities: (tool: string) => readonly string[],
  prdDir?: string,
): VerifiedCommand | string {
  const call = produced.get(result);
  if (!call) return "the result is not one this step's calls returned";
  if (!capabilities(call.tool).includes("code_execute")) return `${call.tool} is not a code_execute tool`;
  const exitCode = result.structuredContent?.exitCode;
  if (result.isError || result.code || (exitCode !== undefined && exitCode !== 0))
    return `${call.tool} did not report success`;
  const ran = commandOf(call.args);
  if (!ran || !isDeepStrictEqual(ran.run, command.run) || !cwdMatches(ran.cwd, command.cwd ?? ".", prdDir))
    return `${call.tool} ran something else than ${JSON.stringify(command.run)}`;
  const index = (story.verify ?? []).findIndex(
    (v) => isDeepStrictEqual(v.run, command.run) && sameCwd(v.cwd ?? ".", command.cwd ?? "."),
  );
  if (index < 0) return `${JSON.stringify(command.run)} is not one of ${story.id}'s verify commands`;
  return { index, name: command.name ?? command.run.join(" "), seq: call.seq, key: call.key, tool: call.tool };
}

/** What the gate may reuse: a verified command and the step it passed in. */
export interface ReusableVerify extends VerifiedCommand {
  step: number;
}

/**
 * The verify commands of a story the gate need not run again, by their place in `story.verify`: those
 * a step verified with nothing written after it, by the evidence — no other call of that step that may
 * have written (a successful call of a tool without `readOnlyHint`) ended after the verifying call
 * started, and no later step of the story made such a call. The verify commands' own calls may write
 * (a test run writes its reports): the gate would run the same commands.
 */
export function reusableVerifies(
  steps: ReadonlyArray<{ step: number; status: string; verified?: VerifiedCommand[]; writes?: CallWrite[] }>,
): Map<number, ReusableVerify> {
  const reusable = new Map<number, ReusableVerify>();
  steps.forEach((s, i) => {
    if (s.status !== "passed" || !s.verified) return;
    if (steps.slice(i + 1).some((later) => later.writes?.length)) return;
    // The verify commands' own runs are what the gate would run too: they do not count as writes.
    const verifying = new Set(s.verified.map((v) => v.seq));
    const writes = (s.writes ?? []).filter((w) => !verifying.has(w.seq));
    for (const v of s.verified)
      if (!writes.some((w) => w.endedAt >= v.seq)) reusable.set(v.index, { ...v, step: s.step });
  });
  return reusable;
}
