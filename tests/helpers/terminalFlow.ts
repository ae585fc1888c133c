import { spawn } from "node:child_process";
import { FLOW_BIN, flowEnv } from "./runFlow.js";

/** A `flow` process on a pseudo-terminal, and what it has drawn there so far. */
export interface TerminalFlow {
  /** Everything written to the terminal so far, escape sequences and carriage returns removed. */
  screen(): string;
  /** Resolves once the screen shows `text`; rejects when flow exits first. */
  waitFor(text: string): Promise<void>;
  /** flow's exit code (the terminal's `script` passes it on). */
  exit: Promise<number | null>;
  /** Ends the terminal: flow gets its hangup. */
  stop(): void;
  /** Types `text` at the terminal (with `typing: true` only). */
  type(text: string): void;
}

const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;
// Colours, cursor moves and erases: what a person's terminal interprets rather than shows.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what is matched
const ESCAPES = /\x1b\[[0-9;?]*[A-Za-z]|\r/g;

/**
 * Runs the built `flow <args>` on a pseudo-terminal of its own, as a person at a terminal does:
 * util-linux `script` gives it one (its stdout is a TTY), and hands on what it draws. `CI` is cleared
 * (flow draws no live view under CI) and colours are off, so the screen reads as text.
 */
export function flowOnTerminal(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string | undefined>; typing?: boolean },
): TerminalFlow {
  const command = [process.execPath, FLOW_BIN, ...args].map(quote).join(" ");
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    cwd: options.cwd,
    env: flowEnv({ ...options.env, CI: undefined, FORCE_COLOR: undefined, NO_COLOR: "1" }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  // Without typing the terminal's input ends at once, as from /dev/null.
  if (!options.typing) child.stdin.end();
  let raw = "";
  const waiters = new Set<() => void>();
  child.stdout.on("data", (chunk: Buffer) => {
    raw += chunk.toString("utf8");
    for (const check of [...waiters]) check();
  });
  child.stderr.resume();
  const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const screen = () => raw.replace(ESCAPES, "");
  return {
    screen,
    exit,
    stop: () => child.kill("SIGTERM"),
    type(text) {
      if (!options.typing) throw new Error("flowOnTerminal: give typing: true to type at the terminal");
      child.stdin.write(text);
    },
    waitFor(text) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!screen().includes(text)) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
        void exit.then(() => {
          if (!waiters.has(check)) return;
          waiters.delete(check);
          reject(new Error(`flow exited before the terminal showed ${JSON.stringify(text)}; it showed:\n${screen()}`));
        });
      });
    },
  };
}
