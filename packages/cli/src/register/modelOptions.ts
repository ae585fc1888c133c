import { type Command, InvalidArgumentError, Option, type OptionValues } from "@commander-js/extra-typings";
import { MODEL_HELP } from "@meshflow/core/providers";
import { nonNegativeInt, positiveInt } from "./shared.js";

/** The values of {@link modelOptions}' flags (declared: the inferred chain is too long to emit). */
export type ModelOptionValues = {
  model?: string | undefined;
  modelBaseUrl?: string | undefined;
  harness?: string | undefined;
  harnessBuiltinTools?: true | undefined;
  maxTurns: number;
  maxStepTokens: number;
  stepTimeout: number;
  maxResultChars: number;
  prices?: string | undefined;
  maxStepCost: number;
  maxRunCost: number;
  contextWindow: number;
  contextShare: number;
  maxRetryWait: number;
  parallelReads: number;
};

/** True when `A` and `B` are the same type (a compile-time check, see {@link ModelFlagsMatch}). */
type Same<A, B> = [A, B] extends [B, A] ? true : false;

/** Holds {@link ModelOptionValues} to the flags {@link modelOptions} defines: tsc fails when they drift. */
// biome-ignore lint/correctness/noUnusedVariables: a compile-time check; only tsc reads it.
type ModelFlagsMatch = Assert<
  Same<
    ReturnType<ReturnType<typeof addModelOptions<[], Record<never, never>, Record<never, never>>>["opts"]>,
    ModelOptionValues
  >
>;
type Assert<T extends true> = T;

/**
 * The options of commands that run stories with a model (run, resume, enqueue, worker, serve): which
 * model, its endpoint, and each step's budgets. `FLOW_MODEL` is not `--model`'s default: a story's or
 * the PRD's `model` comes before it.
 */
export function modelOptions<Args extends unknown[], Opts extends OptionValues, G extends OptionValues>(
  command: Command<Args, Opts, G>,
): Command<Args, Opts & ModelOptionValues, G> {
  return addModelOptions(command) as unknown as Command<Args, Opts & ModelOptionValues, G>;
}

function addModelOptions<Args extends unknown[], Opts extends OptionValues, G extends OptionValues>(
  command: Command<Args, Opts, G>,
) {
  return command
    .addOption(
      new Option(
        "--model <provider:model-id>",
        `the model for every story (${MODEL_HELP.prefixes}); else the story's model, the PRD's, FLOW_MODEL. ${MODEL_HELP.keys}`,
      ),
    )
    .addOption(
      new Option(
        "--model-base-url <url>",
        "the model endpoint for any provider, e.g. http://127.0.0.1:11434/v1 (Ollama); the key sent is the provider's (see --model)",
      ).env("FLOW_MODEL_BASE_URL"),
    )
    .addOption(
      new Option(
        "--harness <name>",
        "a coding agent works every step where a model would, its tool calls served by meshflow: claude-code, opencode, codex (installed in the project or on PATH); else the story's harness, the PRD's",
      ),
    )
    .addOption(
      new Option(
        "--harness-builtin-tools",
        "leave the harness's own tools on (files, shell) beside meshflow's: the step's evidence says so and, in a git repository, records its diff",
      ),
    )
    .addOption(
      new Option("--max-turns <n>", "model turns per step; then the step is blocked (budget_exhausted)")
        .argParser(positiveInt("--max-turns"))
        .default(30),
    )
    .addOption(
      new Option("--max-step-tokens <n>", "input + output tokens per step (0: no limit)")
        .argParser(nonNegativeInt("--max-step-tokens"))
        .default(0),
    )
    .addOption(
      new Option("--step-timeout <ms>", "wall time of a step's model loop (0: no limit)")
        .argParser(nonNegativeInt("--step-timeout"))
        .default(600_000),
    )
    .addOption(
      new Option("--max-result-chars <n>", "characters of one tool result sent back to the model")
        .argParser(positiveInt("--max-result-chars"))
        .default(20_000),
    )
    .addOption(
      new Option(
        "--prices <file>",
        "model prices over the shipped table (YAML or JSON: date, and per <provider>:<model-id> input, output, cacheRead, cacheWrite in US dollars per million tokens, contextWindow); the PRD's prices go over both",
      ),
    )
    .addOption(
      new Option(
        "--max-step-cost <usd>",
        "US dollars a step's model turns may cost; then the step is blocked (budget_exhausted); 0: no limit",
      )
        .argParser(nonNegativeNumber("--max-step-cost"))
        .default(0),
    )
    .addOption(
      new Option(
        "--max-run-cost <usd>",
        "US dollars the run's model turns may cost, every step together; then each further step is blocked (budget_exhausted); 0: no limit",
      )
        .argParser(nonNegativeNumber("--max-run-cost"))
        .default(0),
    )
    .addOption(
      new Option(
        "--context-window <tokens>",
        "tokens of the model's context window (0: the price table's figure for the model; none there: no trimming)",
      )
        .argParser(nonNegativeInt("--context-window"))
        .default(0),
    )
    .addOption(
      new Option(
        "--context-share <fraction>",
        "share of the context window a request may fill; past it the oldest tool results are replaced by a marker (the journal keeps them)",
      )
        .argParser(fraction("--context-share"))
        .default(0.75),
    )
    .addOption(
      new Option(
        "--max-retry-wait <ms>",
        "longest wait a provider's Retry-After may ask for (429, 529); a longer one waits this long",
      )
        .argParser(nonNegativeInt("--max-retry-wait"))
        .default(60_000),
    )
    .addOption(
      new Option(
        "--parallel-reads <n>",
        "most read-only (or idempotent, not destructive) tool calls of one model turn run at once; 1: one at a time",
      )
        .argParser(positiveInt("--parallel-reads"))
        .default(8),
    );
}

/** Parses a non-negative number option value, such as dollars (commander's argParser). */
function nonNegativeNumber(name: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === "" || !Number.isFinite(n) || n < 0)
      throw new InvalidArgumentError(`${name} must be a number, 0 or more, got "${value}"`);
    return n;
  };
}

/** Parses a share: a number above 0 and at most 1. */
function fraction(name: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0 || n > 1)
      throw new InvalidArgumentError(`${name} must be a number above 0 and at most 1, got "${value}"`);
    return n;
  };
}

/** `--record <cassette>` and `--replay <cassette>` (run and resume). */
export function cassetteOptions<Args extends unknown[], Opts extends OptionValues, G extends OptionValues>(
  command: Command<Args, Opts, G>,
) {
  return command
    .addOption(new Option("--record <cassette>", "write every model turn to this file (JSON) for --replay"))
    .addOption(
      new Option(
        "--replay <cassette>",
        "answer every model turn from this recording: no key, no network (tool calls still run live)",
      ).conflicts("record"),
    );
}
