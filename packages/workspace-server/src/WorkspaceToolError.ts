/**
 * Stable codes of the workspace server's tool errors, sent as `structuredContent.code` of every
 * `isError` result. Codes are part of the server's contract: never rename one.
 */
const WORKSPACE_ERROR_CODES = [
  // paths
  "path_invalid",
  "path_traversal",
  "path_outside_root",
  "symlink_escape",
  "symlink_loop",
  "permission_denied",
  "not_found",
  "not_a_file",
  "not_a_directory",
  "binary_file",
  // commands
  "command_not_allowed",
  "command_not_found",
  "command_failed",
  "command_timeout",
  "argument_not_allowed",
  // git
  "not_a_git_repo",
  "revision_not_found",
  "git_failed",
  "repo_unsafe",
  // arguments and scans
  "invalid_argument",
  "invalid_pattern",
  "search_timeout",
  "internal",
] as const;

/** One of {@link WORKSPACE_ERROR_CODES}. */
export type WorkspaceErrorCode = (typeof WORKSPACE_ERROR_CODES)[number];

/**
 * A refusal or failure of one workspace tool call. Tool handlers throw it; the server turns it into an
 * `isError: true` result whose text is the message and whose `structuredContent` is `{ code, message, ...details }`.
 */
export class WorkspaceToolError extends Error {
  readonly code: WorkspaceErrorCode;
  /** Facts a client can act on (path, root, command, allow list, exit code…), safe to send as JSON. */
  readonly details: Readonly<Record<string, unknown>>;
  /** Longer text for models (a command's output, say), shown after the message but kept out of `structuredContent`. */
  readonly report: string | undefined;

  constructor(code: WorkspaceErrorCode, message: string, details: Record<string, unknown> = {}, report?: string) {
    super(message);
    this.name = "WorkspaceToolError";
    this.code = code;
    this.details = details;
    this.report = report;
  }
}
