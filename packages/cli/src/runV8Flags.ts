import { setFlagsFromString } from "node:v8";
import { MeshflowError } from "@meshflow/core";

/**
 * The bytecode a function of a run executes before V8 considers optimizing it (`--interrupt-budget`),
 * a quarter of V8's own default (67,584).
 */
export const RUN_INTERRUPT_BUDGET = 16_384;

/**
 * The V8 flags `flow run` and `flow resume` set once their code and environment are loaded:
 * - `FLOW_MEMORY=lean` (the default): the heap is kept small (`--optimize-for-size`). `bin/flow.js`
 *   sets it at start for every other command. Loading a run with V8's default young generation takes
 *   fewer collections (a start about 20 ms shorter); the run itself, which is what grows with the
 *   PRD, still runs lean. `FLOW_MEMORY=fast` never sets it.
 * - `--interrupt-budget`: a run goes through the same paths thousands of times (the chief analyst,
 *   the tool chain, the MCP client), and with a smaller budget V8 optimizes them sooner. Set after
 *   loading, so the code that runs once at start is not optimized for nothing. A budget given on
 *   node's command line (`node --interrupt-budget=… flow run …`) is kept.
 * - `FLOW_V8_FLAGS` (whitespace-separated) last, so they win: `FLOW_V8_FLAGS=--interrupt-budget=67584`
 *   gives back V8's default (node does not take V8's tuning flags in `NODE_OPTIONS`). V8 reports a
 *   flag it does not know on stderr and goes on; a word that is no flag is a usage error.
 */
export function runV8Flags(env: NodeJS.ProcessEnv, nodeArgs: readonly string[]): string[] {
  const flags: string[] = [];
  if ((env.FLOW_MEMORY ?? "lean") === "lean") flags.push("--optimize-for-size");
  if (!nodeArgs.some((arg) => /^--interrupt[-_]budget(=|$)/.test(arg)))
    flags.push(`--interrupt-budget=${RUN_INTERRUPT_BUDGET}`);
  for (const flag of (env.FLOW_V8_FLAGS ?? "").split(/\s+/).filter(Boolean)) {
    if (!flag.startsWith("--"))
      throw new MeshflowError("usage", `FLOW_V8_FLAGS: "${flag}" is not a V8 flag (they start with --)`);
    flags.push(flag);
  }
  return flags;
}

let applied = false;

/** Sets {@link runV8Flags} for this process, once. */
export function tuneV8ForRun(env: NodeJS.ProcessEnv = process.env): void {
  if (applied) return;
  applied = true;
  for (const flag of runV8Flags(env, process.execArgv)) setFlagsFromString(flag);
}
