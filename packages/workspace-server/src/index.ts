export { type ArgumentPolicy, DEFAULT_ARGUMENT_POLICIES } from "./ArgumentPolicy.js";
export { createWorkspaceServer } from "./createWorkspaceServer.js";
export { resolveWorkspaceOptions, type WorkspaceFlags } from "./loadWorkspaceConfig.js";
export { type StdioWorkspaceServer, startStdioWorkspaceServer } from "./startStdioWorkspaceServer.js";
export type {
  WorkspaceConfig,
  WorkspaceServerOptions,
} from "./WorkspaceConfig.js";
export type {
  FileStat,
  FileStatsResult,
  GitDiffFile,
  GitDiffResult,
  GitStatusEntry,
  GitStatusResult,
  ListFilesResult,
  OutputTail,
  ReadFileResult,
  RunCommandResult,
  SearchMatch,
  SearchTextResult,
  WalkSkipped,
  WorkspaceErrorContent,
  WorkspaceToolResults,
} from "./WorkspaceResults.js";
export type { WorkspaceErrorCode } from "./WorkspaceToolError.js";
