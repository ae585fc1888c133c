import { createInterface } from "node:readline";
import type { ConfirmDestructive, DestructiveCall, DestructiveDecision } from "@meshflow/runtime/host";

/** Where the question is asked. */
export interface PromptTerminal {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** True when a person can answer: stdin and the output are terminals. */
  isTTY: boolean;
}

/** What the run's view does around a question (the live tree stops drawing while a person reads). */
export interface PromptHooks {
  before?(): void;
  after?(): void;
  /** Ctrl-C at the question: the call is declined and the run told to stop. */
  onInterrupt?(): void;
}

const ARGS_PREVIEW = 300;

function describeCall(call: DestructiveCall): string {
  const args = JSON.stringify(call.args);
  const shown = args.length > ARGS_PREVIEW ? `${args.slice(0, ARGS_PREVIEW - 1)}…` : args;
  return `${call.storyId} step ${call.step}: ${call.specialist} calls ${call.tool} (destructive)\n  arguments: ${shown}`;
}

/**
 * `--confirm-destructive`: before each call of a `destructiveHint` tool, asks on the terminal (one
 * question at a time, `y` runs it, anything else declines it). Off a terminal nobody can answer, so
 * every destructive call is refused with `confirmation_required`.
 */
export function destructivePrompt(terminal: PromptTerminal, hooks: PromptHooks = {}): ConfirmDestructive {
  if (!terminal.isTTY)
    return async () => ({
      allow: false,
      code: "confirmation_required",
      reason: "--confirm-destructive asks on a terminal, and this run has none to ask on (stdin is not a TTY)",
    });
  let queue: Promise<unknown> = Promise.resolve();
  const ask = (call: DestructiveCall) =>
    new Promise<DestructiveDecision>((resolve) => {
      hooks.before?.();
      const rl = createInterface({ input: terminal.input, output: terminal.output, terminal: true });
      let settled = false;
      const finish = (decision: DestructiveDecision) => {
        if (settled) return;
        settled = true;
        rl.close();
        hooks.after?.();
        resolve(decision);
      };
      rl.on("SIGINT", () => {
        terminal.output.write("\n");
        finish({ allow: false, code: "confirmation_declined", reason: "interrupted at the question (Ctrl-C)" });
        hooks.onInterrupt?.();
      });
      rl.on("close", () => finish({ allow: false, code: "confirmation_declined", reason: "no answer (input closed)" }));
      rl.question(`\n${describeCall(call)}\n  run it? [y/N] `, (answer) =>
        finish(
          /^y(es)?$/i.test(answer.trim())
            ? { allow: true }
            : {
                allow: false,
                code: "confirmation_declined",
                reason: `declined at the prompt (answer "${answer.trim()}")`,
              },
        ),
      );
    });
  return (call) => {
    // Calls may arrive together (a think() may call in parallel): one question at a time.
    const next = queue.then(() => ask(call));
    queue = next.catch(() => undefined);
    return next;
  };
}
