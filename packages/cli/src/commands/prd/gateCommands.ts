import type { QualityGate } from "./parseMarkdownPrd.js";

/** What a PRD's "Quality Gates" give every story: commands for `verify`, and those left as words. */
export interface GateCommands {
  /** argv of each command, in order (`a && b` is two). */
  commands: string[][];
  /** Commands that need a shell (quotes, pipes, variables…): kept as criteria, not run by the gate. */
  skipped: Array<{ command: string; line: number }>;
}

/** Characters that only a shell understands: a command holding one is not split into argv. */
const SHELL_ONLY = /["'`$|;<>*?(){}\\]|&(?!&)/;

/**
 * The commands of the quality gates that apply to every story, as argv for `verify` (the gate runs
 * them without a shell): `pnpm typecheck && pnpm lint` becomes two commands; one that needs a shell
 * is skipped and named.
 */
export function gateCommands(gates: readonly QualityGate[]): GateCommands {
  const result: GateCommands = { commands: [], skipped: [] };
  for (const gate of gates) {
    if (gate.uiOnly || !gate.command) continue;
    const parts = gate.command.split("&&").map((p) => p.trim());
    if (parts.some((p) => !p || SHELL_ONLY.test(p))) {
      result.skipped.push({ command: gate.command, line: gate.line });
      continue;
    }
    for (const part of parts) result.commands.push(part.split(/\s+/));
  }
  return result;
}
