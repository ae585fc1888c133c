import pc from "picocolors";

/** The colour functions of picocolors (`green`, `red`, `dim`, …); with colour off each returns its text as given. */
export type Colors = ReturnType<typeof pc.createColors>;

/**
 * Whether `flow` colours what it prints: never with `NO_COLOR` set, always with `FORCE_COLOR` set
 * (other than `0`), else only on a terminal. Unlike picocolors' own guess, a `CI` variable alone does
 * not colour output that goes to a file or a pipe.
 */
function colorEnabled(env: NodeJS.ProcessEnv = process.env, isTTY = process.stdout.isTTY === true): boolean {
  if (env.NO_COLOR !== undefined) return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== "0" && env.FORCE_COLOR !== "false";
  return isTTY;
}

/** No colour: for JSON, tests and text that is measured. */
export const plainColors: Colors = pc.createColors(false);

/** The colours of this process's stdout (see {@link colorEnabled}). */
export function terminalColors(): Colors {
  return pc.createColors(colorEnabled());
}

/** A status word's mark, coloured: ✓ passed green, ✗ failed red, ⊘ blocked yellow, – skipped dim. */
export function statusMark(status: string, c: Colors): string {
  switch (status) {
    case "passed":
      return c.green("✓");
    case "failed":
      return c.red("✗");
    case "blocked":
      return c.yellow("⊘");
    case "skipped":
      return c.dim("–");
    case "running":
      return "…";
    case "awaiting_approval":
      return c.yellow("⏸");
    case "pending":
      return " ";
    default:
      return "?";
  }
}

/** `✓ passed`, `✗ failed`, … coloured as {@link statusMark}. */
export function statusWord(status: string, c: Colors): string {
  const color = status === "passed" ? c.green : status === "failed" ? c.red : status === "blocked" ? c.yellow : c.dim;
  return `${statusMark(status, c)} ${color(status)}`;
}

/** Escape codes of colour (SGR sequences). */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");

/** `text` without colour codes. */
export function stripColors(text: string): string {
  return text.replace(ANSI, "");
}
