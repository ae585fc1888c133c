import { setFlagsFromString } from "node:v8";

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
 *   loading, so the code that runs once at start is not optimized for nothing. A budget given to node
 *   itself (`NODE_OPTIONS` or its command line) is kept.
 */
export function runV8Flags(env: NodeJS.ProcessEnv, nodeArgs: readonly string[]): string[] {
  const flags: string[] = [];
  if ((env.FLOW_MEMORY ?? "lean") === "lean") flags.push("--optimize-for-size");
  const given = [...nodeArgs, ...(env.NODE_OPTIONS ?? "").split(/\s+/)].some((arg) =>
    /^--interrupt[-_]budget(=|$)/.test(arg),
  );
  if (!given) flags.push(`--interrupt-budget=${RUN_INTERRUPT_BUDGET}`);
  return flags;
}

let applied = false;

/** Sets {@link runV8Flags} for this process, once. */
export function tuneV8ForRun(env: NodeJS.ProcessEnv = process.env): void {
  if (applied) return;
  applied = true;
  for (const flag of runV8Flags(env, process.execArgv)) setFlagsFromString(flag);
}
