export { claudeCode } from "./adapters/claudeCode.js";
export { codex } from "./adapters/codex.js";
export { opencode } from "./adapters/opencode.js";
export { findProgram } from "./findProgram.js";
export { HARNESSES } from "./HARNESSES.js";
export type {
  HarnessAdapter,
  HarnessCommand,
  HarnessEvent,
  HarnessLaunch,
  StepServerAddress,
} from "./HarnessAdapter.js";
export { HarnessModel, type HarnessModelOptions } from "./HarnessModel.js";
export { StepServer, type StepServerCall, type StepServerTool } from "./StepServer.js";
export { type HarnessCatalogOptions, harnessAdapter, harnessProgram, withHarnesses } from "./withHarnesses.js";
