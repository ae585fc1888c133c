// Public API of @meshflow/console: the web console behind `flow console` and its JSON API.

export { type QueueSnapshot, QueueView, WORKER_CONNECTION_NAME, type WorkerRow } from "./QueueView.js";
export {
  type ConsoleRunStatus,
  RESULT_CHARS,
  RunCatalog,
  type RunDetail,
  type RunRow,
  type TurnRecord,
} from "./RunCatalog.js";
export { type EndedRun, type LaunchedRun, RunLauncher } from "./RunLauncher.js";
export { DEFAULT_WATCH_INTERVAL_MS, RunWatcher } from "./RunWatcher.js";
export { type OverrideRequest, OverrideRequestSchema, type StopRequest, StopRequestSchema } from "./requests.js";
export { ROUTES, type Route } from "./routes.js";
export {
  addJournalCalls,
  buildRunTree,
  type CallNode,
  type EventNode,
  type GateNode,
  type JournalStarted,
  type RunTree,
  type StepItem,
  type StepNode,
  type StoryNode,
  type TurnNode,
} from "./runTree.js";
export {
  type ConsoleOptions,
  DEFAULT_CONSOLE_HOST,
  DEFAULT_CONSOLE_PORT,
  type RunningConsole,
  startConsole,
} from "./startConsole.js";
export type { CoverageView, ServerFailureRow, ToolRow, ToolsSource, ToolsView } from "./ToolsSource.js";
export { percentile, type ToolLatency, toolLatency } from "./toolLatency.js";
export { type OverrideEdit, writeOverride } from "./writeOverride.js";
