import type { WorkspaceErrorCode } from "./WorkspaceToolError.js";

// The `structuredContent` of each tool's successful result. Types, not interfaces, so they stay assignable to
// the SDK's `Record<string, unknown>`.

/** The kept part of one output stream of a command. */
export type OutputTail = {
  /** The tail; when `truncated`, it starts with a `[… N earlier bytes truncated …]` marker line. */
  text: string;
  /** Bytes the stream wrote in all. */
  bytes: number;
  truncated: boolean;
};

/** `run_command` (also the details of its `command_failed` and `command_timeout` errors). */
export type RunCommandResult = {
  command: string;
  args: string[];
  cwd: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  timeoutMs: number;
  durationMs: number;
  stdout: OutputTail;
  stderr: OutputTail;
};

/** One changed path of `git_status`, relative to the workspace root. */
export type GitStatusEntry = {
  path: string;
  origPath?: string;
  status: "modified" | "added" | "deleted" | "renamed" | "copied" | "type_changed" | "unmerged" | "untracked";
  /** git's index (staged) status letter; `.` unchanged, `?` untracked. */
  index: string;
  /** git's work-tree (unstaged) status letter; `.` unchanged, `?` untracked. */
  worktree: string;
};

/** `git_status`. */
export type GitStatusResult = {
  branch: string | null;
  commit: string | null;
  upstream: string | null;
  ahead: number | null;
  behind: number | null;
  entries: GitStatusEntry[];
  clean: boolean;
  truncated: boolean;
  repository: string;
  /** The root's folder inside the repository, `.` when it is the top level. */
  rootInRepository: string;
};

/** One file of `git_diff`; counts are null for binary files. */
export type GitDiffFile = { path: string; additions: number | null; deletions: number | null; binary: boolean };

/** `git_diff`. */
export type GitDiffResult = {
  staged: boolean;
  base: string | null;
  files: GitDiffFile[];
  totals: { files: number; additions: number; deletions: number };
  /** The unified diff; when `truncated`, it ends with a `[… diff truncated …]` marker. */
  patch: string;
  patchBytes: number;
  truncated: boolean;
};

/** What a walk left out; nothing is skipped without being counted. */
export type WalkSkipped = {
  gitignored: number;
  alwaysSkippedFolders: number;
  symlinksOutsideRoot: number;
  symlinkedFolders: number;
  unreadable: number;
};

/** `list_files`. */
export type ListFilesResult = {
  path: string;
  pattern: string | null;
  files: { path: string; bytes: number }[];
  matched: number;
  examined: number;
  truncated: boolean;
  skipped: WalkSkipped;
};

/** One file of `file_stats`; `lines` is null for binary files. */
export type FileStat = { path: string; bytes: number; lines: number | null; binary: boolean };

/** `file_stats`. */
export type FileStatsResult = {
  path: string;
  pattern: string | null;
  sortBy: "path" | "lines" | "bytes";
  files: FileStat[];
  listed: number;
  totals: { files: number; bytes: number; lines: number; binaryFiles: number };
  truncated: boolean;
  skipped: WalkSkipped;
};

/** `read_file`. */
export type ReadFileResult = {
  path: string;
  content: string;
  startLine: number;
  endLine: number;
  totalLines: number;
  bytes: number;
  truncated: boolean;
  nextStartLine: number | null;
};

/** One `search_text` match. */
export type SearchMatch = { path: string; line: number; column: number; text: string; match: string };

/** `search_text`. */
export type SearchTextResult = {
  regex: string;
  path: string;
  pattern: string | null;
  matches: SearchMatch[];
  filesSearched: number;
  truncated: boolean;
  skipped: WalkSkipped & { binary: number; tooLarge: number };
};

/** Each tool's result type by tool name. */
export type WorkspaceToolResults = {
  run_command: RunCommandResult;
  git_status: GitStatusResult;
  git_diff: GitDiffResult;
  list_files: ListFilesResult;
  file_stats: FileStatsResult;
  read_file: ReadFileResult;
  search_text: SearchTextResult;
};

/** The `structuredContent` of an `isError` result: the code and message, plus the details of that refusal. */
export type WorkspaceErrorContent = {
  code: WorkspaceErrorCode;
  message: string;
  [detail: string]: unknown;
};
