import {
  type Command,
  type CommandUnknownOpts,
  InvalidArgumentError,
  Option,
  type OptionValues,
} from "@commander-js/extra-typings";
import { EXIT, type ExitCode } from "../exitCodes.js";
import type { Output } from "../output.js";

/** What every command registrar gets: where to write, and how to report the exit code. */
export interface CommandDeps {
  output: Output;
  setExit(code: ExitCode): void;
}

/** Registers one command on the program. Registrars stay light: implementations are imported in the action. */
export type Registrar = (program: Command, deps: CommandDeps) => void;

/**
 * Commander's typed options as the options type `T` a command reads, checked by tsc both ways: each
 * option has the type `T` says, and every key of `T` is an option of the command, so a flag renamed
 * without its uses fails the typecheck (the types come from the flags, through extra-typings).
 *
 * @example
 * .action(async (file, options) => runCommand(file, flags<RunCommandOptions>()(options), output))
 */
export function flags<T extends object>() {
  return <O extends T>(options: O & { [K in Exclude<keyof T, keyof O>]-?: never }): T => options;
}

/** The exit-code table every `--help` ends with. */
export const EXIT_CODES_HELP = `
Exit codes:
  0  done          1  the work failed (invalid input, failed or blocked story)
  2  usage error   3  environment error (server or Redis unreachable)`;

/** The exit-code table of the run commands: Ctrl-C and a wait for approval are more ways to end. */
export const RUN_EXIT_CODES_HELP = `${EXIT_CODES_HELP}
  4    paused: every story that could go on waits for a person's approval of a call; decide with
       flow approve <runId>, continue with flow resume <runId>
  130  interrupted (Ctrl-C, or paused by its guard locking: a rate limit, an emergency stop): calls in
       flight were recorded, no story failed because of it; continue with flow resume <runId>`;

/** The environment that tunes V8 for `flow run` and `flow resume` (see runV8Flags.ts). */
export const RUN_V8_HELP = `V8 settings (environment):
  FLOW_MEMORY     lean (default): a small heap (--optimize-for-size); fast: V8's own heap growth
  FLOW_V8_FLAGS   V8 flags set once the run has loaded, after its own (--interrupt-budget=16384)`;

/** A command that only groups subcommands (`flow tools`): alone, it prints its help on stderr and is a usage error. */
export function commandGroup(program: Command, name: string, description: string, deps: CommandDeps): Command {
  const group = program
    .command(name)
    .description(description)
    .addHelpText("after", EXIT_CODES_HELP)
    .action(() => {
      group.outputHelp({ error: true });
      deps.setExit(EXIT.usage);
    });
  return group;
}

/** `--routing <file>` (env FLOW_ROUTING). */
export function routingOption() {
  return new Option("--routing <file>", "step → specialist routing file merged over the default (YAML or JSON)").env(
    "FLOW_ROUTING",
  );
}

/** `--mcp-config <file>`; the lookup then falls back to FLOW_MCP_CONFIG and ./.mcp.json. */
export function mcpConfigOption() {
  return new Option("--mcp-config <file>", "MCP config (.mcp.json format); default FLOW_MCP_CONFIG, then ./.mcp.json");
}

/** `--store <dir>` (env FLOW_HOME): where runs are kept. */
export function storeOption() {
  return new Option("--store <dir>", "folder of the run store (runs in <dir>/runs/<runId>/)")
    .env("FLOW_HOME")
    .default(".flow");
}

/** `--agents <dir...>` (env FLOW_AGENTS, separated like PATH): specialist folders. */
export function agentsOption() {
  return new Option(
    "--agents <dir...>",
    "specialist folders (agents/<name>/agent.ts), exactly these; default ./agents over the built-in specialists",
  ).env("FLOW_AGENTS");
}

/** `--skills <dir>` (env FLOW_SKILLS): skills, capability catalog and alias maps; default ./skills when present. */
export function skillsOption() {
  return new Option(
    "--skills <dir>",
    "skills folder (SKILL.md files, capabilities.yaml, aliases/); default ./skills merged over the built-in skills",
  ).env("FLOW_SKILLS");
}

/** `--confirm-destructive`: ask before each destructive call (run and resume). */
export function confirmDestructiveOption() {
  return new Option(
    "--confirm-destructive",
    "ask on the terminal before each call of a destructive tool (destructiveHint); off a terminal such calls are refused",
  );
}

/** `--approve <mode>`: which calls wait for a person's approval besides the rules' (run; recorded). */
export function approveOption() {
  return new Option(
    "--approve <mode>",
    "calls that wait for a person's approval (flow approve): none, destructive (destructiveHint tools) or all; the approvals rules add to it; recorded with the run",
  )
    .choices(["none", "destructive", "all"] as const)
    .default("none" as const);
}

/** `--approvals <file>`: the approvals rules (default `.flow/approvals.yaml` when present). */
export function approvalsOption() {
  return new Option(
    "--approvals <file>",
    "approvals rules (YAML or JSON: calls by server, tool, capability and argument patterns that wait for a person's approval); default .flow/approvals.yaml when present",
  );
}

/**
 * `--wait-for-approval [duration]`: a call waiting for approval keeps the process waiting for a
 * decision (`flow approve` from anywhere) instead of pausing the run; no duration: until decided.
 */
export function waitForApprovalOption() {
  return new Option(
    "--wait-for-approval [duration]",
    "keep waiting for approval decisions (30s, 10m, 2h; none given: until decided) instead of pausing the run (exit 4) once every story in flight waits",
  ).argParser(durationMs("--wait-for-approval"));
}

/** A duration `90`, `90s`, `10m`, `2h` (seconds unless suffixed) in milliseconds. */
function durationMs(name: string): (value: string) => number {
  return (value) => {
    const found = /^(\d+)(ms|s|m|h)?$/.exec(value.trim());
    if (!found) throw new InvalidArgumentError(`${name} takes a duration such as 30s, 10m or 2h, got "${value}"`);
    const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[(found[2] ?? "s") as "ms" | "s" | "m" | "h"];
    return Number(found[1]) * unit;
  };
}

/** `--redis <url>` (env FLOW_REDIS_URL): the Redis of the queues, one server or a cluster. */
export function redisOption(
  description = "Redis of the queues (redis://host:port, or a Redis Cluster: redis+cluster://host:port,host:port)",
) {
  return new Option("--redis <url>", description).env("FLOW_REDIS_URL");
}

/**
 * `--redis-cluster <nodes>`: `--redis redis+cluster://<nodes>`; from `FLOW_REDIS_CLUSTER` too unless
 * `env` is false (`flow status`, whose `--redis` has no environment default either).
 */
export function redisClusterOption(env = true) {
  const option = new Option(
    "--redis-cluster <host:port,...>",
    "a Redis Cluster instead of --redis (seed nodes; keys get a {hash tag} prefix so each queue stays in one slot)",
  );
  return env ? option.env("FLOW_REDIS_CLUSTER") : option;
}

/**
 * Before a command's action: `--redis-cluster a:1,b:2` becomes `--redis redis+cluster://a:1,b:2` (a
 * program-level preAction hook, so commands read one `redis` option). Both on the command line is a
 * usage error.
 */
export function applyRedisCluster(command: CommandUnknownOpts): void {
  const nodes = command.getOptionValue("redisCluster");
  if (typeof nodes !== "string" || !nodes) return;
  const redis = command.getOptionValue("redis");
  if (
    redis &&
    command.getOptionValueSource("redis") === "cli" &&
    command.getOptionValueSource("redisCluster") === "cli"
  )
    command.error("flow: give --redis or --redis-cluster, not both", { exitCode: 2, code: "flow.redisCluster" });
  command.setOptionValueWithSource(
    "redis",
    /^rediss?\+cluster:\/\//.test(nodes) ? nodes : `redis+cluster://${nodes.trim()}`,
    "cli",
  );
}

/** `--redis-prefix <prefix>` (env FLOW_REDIS_PREFIX): the one key prefix of everything meshflow keeps in Redis. */
export function redisPrefixOption() {
  return new Option("--redis-prefix <prefix>", "key prefix in that Redis")
    .env("FLOW_REDIS_PREFIX")
    .default("meshflow:");
}

/**
 * The options of commands that classify tools (`flow tools …`, `flow docs tools`): a skills folder that
 * must exist (default ./skills), and where classifications are cached (Redis, else a JSON file).
 */
export function classificationOptions<Args extends unknown[], Opts extends OptionValues, G extends OptionValues>(
  command: Command<Args, Opts, G>,
) {
  return command
    .addOption(
      new Option(
        "--skills <dir>",
        "skills folder: capabilities.yaml, capability-overrides.yaml, aliases/, <skill>/SKILL.md; default ./skills merged over the built-in skills",
      ).env("FLOW_SKILLS"),
    )
    .addOption(redisOption("keep tool classifications in this Redis"))
    .addOption(redisPrefixOption())
    .option(
      "--cache <file>",
      "classification cache file when no Redis is configured",
      ".flow/cache/classifications.json",
    );
}

/** `--executor inline|queue` with the Redis options a queue executor needs (run and resume). */
export function executorOptions<Args extends unknown[], Opts extends OptionValues, G extends OptionValues>(
  command: Command<Args, Opts, G>,
) {
  return command
    .addOption(
      new Option("--executor <kind>", "where tool calls run: inline (this process) or queue (flow workers on Redis)")
        .choices(["inline", "queue"])
        .default("inline"),
    )
    .addOption(redisOption("Redis of the queue (with --executor queue; a cluster: redis+cluster://host:port,…)"))
    .addOption(redisClusterOption())
    .addOption(redisPrefixOption());
}

/** Parses a positive integer option value (commander's argParser). */
export function positiveInt(name: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0)
      throw new InvalidArgumentError(`${name} must be a positive integer, got "${value}"`);
    return n;
  };
}

/**
 * The guard's default rate limit, the same as `DEFAULT_CALLS_PER_MINUTE` of `@meshflow/mcp` (kept
 * here so registering commands loads no package; a test holds the two equal).
 */
export const DEFAULT_CALLS_PER_MINUTE = 6_000;

/**
 * `--calls-per-minute <n>`: the rate limit of the process's one guard (0 = none). `resumed`: the
 * default is the value the run was started with.
 */
export function callsPerMinuteOption(whose: string) {
  return callsPerMinute(whose, "").default(DEFAULT_CALLS_PER_MINUTE);
}

/** `--calls-per-minute <n>` of `flow resume`: the default is the value the run was started with. */
export function resumedCallsPerMinuteOption(whose: string) {
  return callsPerMinute(whose, "; default: the value the run was started with");
}

function callsPerMinute(whose: string, more: string) {
  return new Option(
    "--calls-per-minute <n>",
    `guarded tool calls in any 60 s window before ${whose} locks (emergency stop; refused calls name this flag); 0 turns the limit off${more}`,
  ).argParser(nonNegativeInt("--calls-per-minute"));
}

/** Parses a non-negative integer option value (commander's argParser). */
export function nonNegativeInt(name: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${name} must be 0 or more, got "${value}"`);
    return n;
  };
}

/**
 * The largest stdio message, the same as `DEFAULT_MAX_MESSAGE_BYTES` of `@meshflow/core` (kept here so
 * registering commands loads no package).
 */
const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** Why a largest-message value is refused: the words `maxMessageBytes` of `@meshflow/core` uses too. */
function maxMessageBytesArg(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new InvalidArgumentError(`must be a positive whole number of bytes, not "${value}"`);
  return n;
}

/**
 * `--max-message-bytes <bytes>` (env FLOW_MAX_MESSAGE_BYTES): the largest message read from a stdio
 * MCP server (or, for `flow serve`, from its client); a larger one fails its call with `result_too_large`.
 */
export function maxMessageBytesOption(
  description = "largest message read over stdio from an MCP server (flow serve: from its client); a larger one fails its call with result_too_large",
) {
  return new Option("--max-message-bytes <bytes>", description)
    .env("FLOW_MAX_MESSAGE_BYTES")
    .argParser(maxMessageBytesArg)
    .default(DEFAULT_MAX_MESSAGE_BYTES, "16777216 (16 MiB)");
}

/**
 * Before a command's action: its `--max-message-bytes` becomes `FLOW_MAX_MESSAGE_BYTES`, which every
 * stdio reader of the process (each server connection of each pool, `flow serve`'s own stdin) reads.
 * A command without the option still refuses a malformed `FLOW_MAX_MESSAGE_BYTES` (exit 2).
 */
export function applyMaxMessageBytes(command: CommandUnknownOpts): void {
  const value = command.getOptionValue("maxMessageBytes");
  if (typeof value === "number") {
    process.env.FLOW_MAX_MESSAGE_BYTES = String(value);
    return;
  }
  const raw = process.env.FLOW_MAX_MESSAGE_BYTES;
  if (raw === undefined || raw === "") return;
  try {
    maxMessageBytesArg(raw);
  } catch (error) {
    command.error(`flow: FLOW_MAX_MESSAGE_BYTES ${(error as Error).message}`, {
      exitCode: 2,
      code: "flow.maxMessageBytes",
    });
  }
}

/** The PRD limits' defaults, the same as `DEFAULT_PRD_LIMITS` of `@meshflow/core` (kept here so registering commands loads no package). */
const DEFAULT_MAX_PRD_STORIES = 100_000;
/** 256 MiB. */
const DEFAULT_MAX_PRD_BYTES = 256 * 1024 * 1024;

function positiveWhole(unit: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n <= 0)
      throw new InvalidArgumentError(`must be a positive whole number of ${unit}, not "${value}"`);
    return n;
  };
}

/**
 * `--max-prd-stories <n>` (env FLOW_MAX_PRD_STORIES): most stories a PRD the command reads may hold; a
 * PRD with more is refused with `prd_too_large` as its stories are counted, before it is parsed.
 */
export function maxPrdStoriesOption() {
  return new Option("--max-prd-stories <n>", "most stories a PRD may hold; a PRD with more is refused (prd_too_large)")
    .env("FLOW_MAX_PRD_STORIES")
    .argParser(positiveWhole("stories"))
    .default(DEFAULT_MAX_PRD_STORIES, "100000");
}

/**
 * `--max-prd-bytes <bytes>` (env FLOW_MAX_PRD_BYTES): the largest PRD file the command reads; a larger
 * one is refused with `prd_too_large` from its size, before it is read.
 */
export function maxPrdBytesOption() {
  return new Option(
    "--max-prd-bytes <bytes>",
    "largest PRD file read; a larger one is refused before it is parsed (prd_too_large)",
  )
    .env("FLOW_MAX_PRD_BYTES")
    .argParser(positiveWhole("bytes"))
    .default(DEFAULT_MAX_PRD_BYTES, "268435456 (256 MiB)");
}

/**
 * Before a command's action: its `--max-prd-stories` and `--max-prd-bytes` become `FLOW_MAX_PRD_STORIES`
 * and `FLOW_MAX_PRD_BYTES`, which every PRD reader of the process (`prdLimits()` of `@meshflow/core`) reads.
 */
export function applyPrdLimits(command: CommandUnknownOpts): void {
  const stories = command.getOptionValue("maxPrdStories");
  if (typeof stories === "number") process.env.FLOW_MAX_PRD_STORIES = String(stories);
  const bytes = command.getOptionValue("maxPrdBytes");
  if (typeof bytes === "number") process.env.FLOW_MAX_PRD_BYTES = String(bytes);
}
