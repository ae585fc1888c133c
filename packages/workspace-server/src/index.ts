export { type ArgumentPolicy, ArgumentPolicySchema, DEFAULT_ARGUMENT_POLICIES } from "./ArgumentPolicy.js";
export { createWorkspaceServer, WORKSPACE_TOOLS } from "./createWorkspaceServer.js";
export { loadWorkspaceConfig, resolveWorkspaceOptions, type WorkspaceFlags } from "./loadWorkspaceConfig.js";
export { type StdioWorkspaceServer, startStdioWorkspaceServer } from "./startStdioWorkspaceServer.js";
export {
  WORKSPACE_DEFAULTS,
  type WorkspaceConfig,
  WorkspaceConfigSchema,
  type WorkspaceServerOptions,
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
export {
  WORKSPACE_ERROR_CODES,
  type WorkspaceErrorCode,
  WorkspaceToolError,
} from "./WorkspaceToolError.js";
