import type { ErrorCode } from "@meshflow/core";

/** The exit codes of `flow`, the same for every command. */
export const EXIT = {
  /** Everything asked for was done. */
  ok: 0,
  /**
   * The work failed: invalid input (`prd_invalid`, a PRD over its limits: `prd_too_large`, `invalid_arguments`,
   * `invalid_pattern`), a failed or blocked story, a tool error (an answer over the stdio limit: `result_too_large`).
   * Every code that is not a usage or environment error.
   */
  failure: 1,
  /** The command was used wrongly: unknown flag, missing argument, missing file. */
  usage: 2,
  /** The environment is not usable: a server or Redis is unreachable. */
  environment: 3,
  /**
   * A run paused because every story that could go on waits for a person's approval of a call
   * (`approval_required`): decide with `flow approve <runId>`, continue with `flow resume <runId>`.
   */
  paused: 4,
  /** A run stopped by Ctrl-C (SIGINT) or SIGTERM: resumable with `flow resume`. 128 + SIGINT, as shells do. */
  interrupted: 130,
} as const;

/** One of {@link EXIT}'s values. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

const USAGE: ReadonlySet<ErrorCode> = new Set([
  "usage",
  "file_not_found",
  "mcp_config_not_found",
  "run_not_found",
  "toolset_unknown",
  "cassette_invalid",
  "prices_invalid",
  "approvals_invalid",
  "tree_dirty",
]);
const ENVIRONMENT: ReadonlySet<ErrorCode> = new Set([
  "server_unreachable",
  "server_crashed",
  "connect_timeout",
  "redis_unavailable",
  "redis_misconfigured",
  "model_unavailable",
  "dependency_missing",
]);

/** The one place error codes become exit codes. */
export function exitCodeFor(code: ErrorCode): ExitCode {
  if (USAGE.has(code)) return EXIT.usage;
  if (ENVIRONMENT.has(code)) return EXIT.environment;
  return EXIT.failure;
}
