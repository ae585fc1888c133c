// Public API of @meshflow/console: the web console behind `flow console` and its JSON API.

export {
  DEFAULT_PRD_SEARCH,
  type PrdListing,
  type PrdSearchBounds,
  type PrdsSkipped,
  type ProjectPrd,
} from "./projectPrds.js";
export type { QueueSnapshot, WorkerRow } from "./QueueView.js";
export type {
  ConsoleRunStatus,
  RunDetail,
  RunRow,
  TurnRecord,
} from "./RunCatalog.js";
export {
  type EndedRun,
  type LaunchedRun,
  type LaunchState,
  RunLauncher,
  type RunStart,
  type UnstartedRun,
} from "./RunLauncher.js";
export type { OverrideRequest, StartRunRequest, StopRequest } from "./requests.js";
export type { Route } from "./routeTypes.js";
export type { EventNode, JournalStarted, RunTree } from "./runTree.js";
export {
  type ConsoleOptions,
  type RunningConsole,
  startConsole,
} from "./startConsole.js";
export type { CoverageView, ServerFailureRow, ToolRow, ToolsSource, ToolsView } from "./ToolsSource.js";
export type { ToolLatency } from "./toolLatency.js";
export type { OverrideEdit } from "./writeOverride.js";
