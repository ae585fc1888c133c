/**
 * The host API of @meshflow/runtime: what a program that runs PRDs needs (flow, the gateway, a
 * worker): runs and resumes, the run store, the environment, the preflight and dry run, the completion
 * gate and write-back, the PRD workflow. Agent developers need only `@meshflow/runtime`.
 */

export { allowFix } from "./allowlists/allowFix.js";
export { refusedVerifies, type VerifyRefusal, type VerifyStep } from "./allowlists/refusedVerifies.js";
export type { ApprovalBook, ApprovalDecision, ApprovalRequest } from "./approvals/ApprovalBook.js";
export { approvalLedger } from "./approvals/ApprovalBook.js";
export type { ApprovalPolicy, ApproveMode } from "./approvals/ApprovalPolicy.js";
export {
  approvalPolicyOf,
  approvalReason,
  asksForApproval,
  loadApprovalPolicy,
} from "./approvals/ApprovalPolicy.js";
export { approvalBookOver } from "./approvals/approvalBookOver.js";
export { decideApprovals } from "./approvals/decideApprovals.js";
export type { ConfirmDestructive, DestructiveCall, DestructiveDecision } from "./ConfirmDestructive.js";
export { createToolPlane, type ToolPlaneOptions } from "./createToolPlane.js";
export { type DryRun, type DryRunCall, type DryRunStep, dryRun } from "./dryRun.js";
export { type ResetResult, resetStories } from "./gate/resetStories.js";
export type { GateResult, ReusedVerify, VerifyResult } from "./gate/runVerify.js";
export { type PassMark, settleMarks } from "./gate/settleMarks.js";
export type {
  ChiefAnalyst,
  ChiefContext,
  ChiefEvent,
  ChiefServices,
  RunCounts,
} from "./machine/chiefAnalyst.js";
export { parallelWaves, type WaveStory } from "./machine/parallelWaves.js";
export { type MarkResult, markRun } from "./markRun.js";
export { type Preflight, type PreflightInput, prdWorkDigest } from "./preflight.js";
export { RunEnvironment, type RunEnvironmentOptions, type RunParts, type RunThinking } from "./RunEnvironment.js";
export type { PlannedStory, RunPlan } from "./RunPlan.js";
export type { CallItem, StepItem, TurnItem } from "./report/stepItems.js";
export {
  type ConsultReport,
  effectiveStatus,
  type StepReport,
  type StoryReport,
  storyReports,
} from "./report/storyReports.js";
export {
  type RunDependencies,
  type RunSession,
  type RunSummary,
  resumeRun,
  type StartRunOptions,
  startRun,
} from "./runSession.js";
export type { Unmarked } from "./session/PassMarks.js";
export { specialistInfo } from "./specialists/defineSpecialist.js";
export {
  INSTRUCTIONS_FILE,
  type LoadedSpecialist,
  type LoadSpecialistsOptions,
  loadSpecialists,
} from "./specialists/loadSpecialists.js";
export { FileRunStore, newRunId } from "./store/FileRunStore.js";
export { lockPrd, type PrdLockFacts } from "./store/lockPrd.js";
export type {
  ModelSettings,
  RunOptions,
  RunRecord,
  RunStatus,
} from "./store/RunRecord.js";
export type { RunHandle, RunStore } from "./store/RunStore.js";
export type { DiscoveryFailure, ToolPlane, ToolResolution } from "./ToolPlane.js";
export { Git, type TreeState } from "./workflow/Git.js";
export { type ProgressEntry, ProgressLog } from "./workflow/ProgressLog.js";
export {
  assertCleanTree,
  bookkeeping,
  type PrdWorkflowOptions,
  prdWorkflow,
  type StoryCommit,
} from "./workflow/prdWorkflow.js";

export { type RerunPlan, rerunPlan } from "./workflow/rerunFailed.js";
export type { CarriedStep, ConcludedStep, ConcludedStory, StoryHooks } from "./workflow/StoryHooks.js";
export { StoryMemory } from "./workflow/StoryMemory.js";
export { type RunWorkflow, type WorkflowForOptions, workflowFor } from "./workflow/workflowFor.js";
export { removeRunWorktrees } from "./workflow/worktrees/removeRunWorktrees.js";
export type { StoryWorkspaces } from "./workflow/worktrees/StoryWorkspaces.js";
export { StoryWorktrees } from "./workflow/worktrees/StoryWorktrees.js";
export { WorktreePlanes } from "./workflow/worktrees/WorktreePlanes.js";
