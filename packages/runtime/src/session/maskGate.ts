import type { GateResult } from "../gate/runVerify.js";

/**
 * The gate's result with the MCP config's secrets masked in the commands' output, where that output
 * enters the run: the summary and tails go on to events, evidence, memory, the progress log and reports.
 */
export function maskGate(gate: GateResult, mask: ((text: string) => string) | undefined): GateResult {
  if (!mask) return gate;
  return {
    ...gate,
    summary: mask(gate.summary),
    results: gate.results.map((r) => ({
      ...r,
      tail: mask(r.tail),
      ...(r.error !== undefined ? { error: mask(r.error) } : {}),
    })),
  };
}
