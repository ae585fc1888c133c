import type { StepStatus } from "@meshflow/core";
import type { Executor } from "@meshflow/mcp";
import type { GateResult } from "../../gate/runVerify.js";
import type { PlannedStory, RunPlan } from "../../RunPlan.js";

/** Where one story works when stories are isolated: its own folder, with its own tool calls. */
export interface StoryWorkspace {
  /** The story's folder (its git worktree). */
  dir: string;
  /** The PRD's folder inside it: what `verify` working directories and `ctx.prdDir` are there. */
  prdDir: string;
  /** Runs the story's tool calls (servers that depend on `${FLOW_WORKSPACE}` started in `dir`); absent: the run's. */
  executor?: Executor;
}

/** How a story that passed in its workspace landed in the branch the run started on. */
export interface Landing {
  status: StepStatus;
  summary: string;
  /** The gate's verdict on the merged tree, when it ran again there. */
  gate?: GateResult;
  /** The story's commit in its workspace, when it made one. */
  commit?: string;
  /** The message of that commit. */
  message?: string;
  /** The files the story changed. */
  files: string[];
  /** Problems that did not change the outcome. */
  warnings: string[];
}

/** What landing a story needs from the run: its story, steps' specialists, and its gate. */
export interface LandingRequest {
  runId: string;
  plan: RunPlan;
  planned: PlannedStory;
  /** The specialists of the story's steps (the commit type comes from them). */
  specialists: readonly string[];
  /** Runs the story's `verify` commands in a folder (the PRD's folder of the merged tree). */
  gate(prdDir: string): Promise<GateResult>;
  /**
   * Asks a specialist to resolve a conflicted merge in the story's workspace (`--resolve-conflicts`):
   * resolves to whether its step passed. Absent: a conflict blocks the story.
   */
  resolve?(conflicted: readonly string[], workspace: StoryWorkspace): Promise<{ passed: boolean; summary: string }>;
}

/**
 * Isolated stories (`flow run --parallel n --isolate worktree`): each story works in a workspace of its
 * own, and a story that passed there lands in the run's branch (committed, merged, gated again).
 */
export interface StoryWorkspaces {
  /** The story's workspace, made on its first step (or found again on resume). */
  open(runId: string, planned: PlannedStory, plan: RunPlan): Promise<StoryWorkspace>;
  /** The workspace a story has open, if any. */
  of(storyId: string): StoryWorkspace | undefined;
  /** Commits a passed story in its workspace and merges it (one story at a time, in run order). */
  land(request: LandingRequest): Promise<Landing>;
  /** A story that did not pass: its workspace stays (with its branch), its servers stop. */
  keep(planned: PlannedStory): Promise<void>;
  /**
   * At the run's end: with `finished`, what it merged is gone (worktrees, branches); what failed or was
   * blocked stays. Returns the workspaces kept, by story id.
   */
  close(runId: string, finished: boolean): Promise<Map<string, string>>;
}
