/** Every stable error code meshflow reports. Codes are part of the public contract: never rename one. */
const ERROR_CODES = [
  // bad input
  "usage",
  "file_not_found",
  "json_invalid",
  "prd_invalid",
  // a PRD over the story or byte limit (--max-prd-stories, --max-prd-bytes)
  "prd_too_large",
  "mcp_config_invalid",
  "mcp_config_not_found",
  "routing_invalid",
  // MCP servers and tool calls
  "server_unknown",
  "server_unreachable",
  "server_crashed",
  "connect_timeout",
  "call_timeout",
  "tool_error",
  // a message from a server (or a client of flow serve) larger than the stdio limit
  "result_too_large",
  // middleware refusals
  "guard_locked",
  "rate_limit_exceeded",
  "not_in_repertoire",
  "confirmation_required",
  "confirmation_invalid",
  "confirmation_declined",
  // a call that needs a person's approval (--approve, .flow/approvals.yaml): not decided yet; denied
  "approval_required",
  "approval_denied",
  // an approvals rules file (.flow/approvals.yaml, --approvals) that is not valid
  "approvals_invalid",
  // a decision for a run that waits for no approval; for a call whose arguments changed since it was shown
  "approval_not_pending",
  "approval_stale",
  "invalid_arguments",
  // a regular expression given to a tool that is not one (or over its size limit)
  "invalid_pattern",
  // the gateway MCP server
  "toolset_unknown",
  "toolset_config_invalid",
  // resolver
  "tool_not_found",
  "tool_ambiguous",
  "aliases_invalid",
  "capabilities_invalid",
  "skill_invalid",
  "skill_unknown",
  // runs, specialists, queue
  "specialist_unknown",
  "specialist_invalid",
  // specialists consulting each other: not declared, a cycle, deeper than the limit
  "consult_refused",
  "consult_cycle",
  "consult_depth",
  "prd_changed",
  "run_locked",
  "prd_busy",
  // passed stories whose marks the PRD does not hold (the file kept changing); `flow mark` writes them
  "prd_unmarked",
  "outcome_unknown",
  "aborted",
  "run_not_found",
  "redis_unavailable",
  "redis_misconfigured",
  // models
  "model_unavailable",
  "model_error",
  "model_no_outcome",
  "budget_exhausted",
  "replay_mismatch",
  "cassette_invalid",
  /** A price table (`--prices`, the PRD's `prices`) that is not valid. */
  "prices_invalid",
  // exporting specialists to agent harnesses
  "harness_unknown",
  "export_config_invalid",
  "export_invalid",
  // an optional package a command needs is not installed
  "dependency_missing",
  // the PRD workflow's git: a command failed; uncommitted changes where a clean tree is needed
  "git_failed",
  "tree_dirty",
  // a file or folder meshflow writes is a link, or leads outside where it belongs; a repository's git
  // settings point outside it
  "unsafe_path",
  "repo_unsafe",
  "internal",
] as const;

/** A stable, machine-readable error code. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** The base of every error meshflow throws on purpose: a stable `code` plus a message that says where. */
export class MeshflowError extends Error {
  readonly code: ErrorCode;
  /** Extra structured facts (file, path, server, tool, candidates…), safe to print as JSON. */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "MeshflowError";
    this.code = code;
    this.details = options.details ?? {};
  }
}

/** True when `value` is a {@link MeshflowError} (also across duplicated module instances). */
export function isMeshflowError(value: unknown): value is MeshflowError {
  if (value instanceof MeshflowError) return true;
  if (!(value instanceof Error) || value.name !== "MeshflowError") return false;
  const code: unknown = (value as { code?: unknown }).code;
  return typeof code === "string" && (ERROR_CODES as readonly string[]).includes(code);
}

/** Normalises anything thrown into a {@link MeshflowError}; unknown failures become `internal`. */
export function toMeshflowError(value: unknown, fallback: ErrorCode = "internal"): MeshflowError {
  if (isMeshflowError(value)) return value;
  if (value instanceof Error) return new MeshflowError(fallback, value.message, { cause: value });
  return new MeshflowError(fallback, String(value));
}
