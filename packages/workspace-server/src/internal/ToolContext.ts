import type { AllowList } from "./AllowList.js";
import type { WorkspaceRoot } from "./WorkspaceRoot.js";

/** What every tool of one server shares: the root, the allowlist and the limits, all fixed at creation. */
export interface ToolContext {
  root: WorkspaceRoot;
  allow: AllowList;
  timeoutMs: number;
  maxOutputBytes: number;
  maxReadBytes: number;
  maxFiles: number;
  killGraceMs: number;
  env: NodeJS.ProcessEnv;
}
