import { type StepStatus, toMeshflowError } from "@meshflow/core";
import type { CallEvidence } from "../CallEvidence.js";
import type { GateResult } from "../gate/runVerify.js";
import type { PlannedStory, RunPlan } from "../RunPlan.js";
import type { StepMemory } from "../specialists/defineSpecialist.js";
import { type Recall, type RunMemory, runMemory } from "./RunMemory.js";

/** A step of a story as it concluded (what its evidence records). */
export interface ConcludedStep {
  step: number;
  specialist: string;
  status: StepStatus;
  summary: string;
  calls: CallEvidence[];
  evidence: unknown[];
}

/** A story that concluded (its evidence is recorded; a passed one is about to be marked in the PRD). */
export interface ConcludedStory {
  runId: string;
  plan: RunPlan;
  planned: PlannedStory;
  status: StepStatus;
  summary: string;
  steps: readonly ConcludedStep[];
  gate: GateResult | undefined;
  /**
   * The story worked in a workspace of its own (`--isolate worktree`): the files it changed there, and
   * its commit on its branch when it made one (merged when the story passed).
   */
  isolated?: { files: string[]; commit?: string; message?: string };
}

/** A passed step an earlier run recorded, kept instead of running it again (`flow run --rerun-failed`). */
export interface CarriedStep extends ConcludedStep {
  status: "passed";
}

/**
 * What a run does around its stories besides running them (the PRD workflow: progress log, story
 * memory, a commit per story, re-runs). Every hook is optional; none may change a story's outcome, and
 * a hook that throws is reported as a warning of the run.
 */
export interface StoryHooks {
  /** Before the first step of a story starts (not when a resumed run continues a story mid-way). */
  beforeStory?(planned: PlannedStory, plan: RunPlan, runId: string): Promise<void>;
  /** What a step of `planned` is told about other stories (`ctx.memory.stories`, `.learnings`). */
  recall?(planned: PlannedStory, plan: RunPlan): Recall;
  /** A step to keep from an earlier run rather than run: its recorded result. */
  carried?(planned: PlannedStory, stepIndex: number): CarriedStep | undefined;
  /** Every line a specialist logs (`ctx.log.info/warn/learn`; learnings have `level: "learning"`). */
  onLog?(entry: Record<string, unknown>): void;
  /** After a story's evidence is recorded, before a passed story is marked in the PRD. Returns warnings. */
  afterStory?(story: ConcludedStory): Promise<string[]>;
  /**
   * Writes what the hooks hold back (the progress log's and story memory's new entries). The run calls
   * it before it saves its state (so a saved state never relies on an entry not written) and at its end.
   */
  flush?(): void;
}

/**
 * Runs a step through the hooks: `beforeStory` at the story's first step, a carried result instead of
 * `think` when there is one, and `think` with the memory the hooks recall otherwise.
 */
export async function hookedStep<R>(
  hooks: StoryHooks | undefined,
  plan: RunPlan,
  planned: PlannedStory,
  position: { runId: string; step: number; steps: readonly StepMemory[] },
  think: (memory: RunMemory) => Promise<R>,
): Promise<R | CarriedStep> {
  if (!hooks) return think(runMemory(position.steps));
  if (position.step === 0 && position.steps.length === 0) await hooks.beforeStory?.(planned, plan, position.runId);
  const carried = hooks.carried?.(planned, position.step);
  if (carried) return carried;
  return think(runMemory(position.steps, hooks.recall?.(planned, plan)));
}

/** Calls `afterStory`; never throws (a failure is one warning). */
export async function afterStory(hooks: StoryHooks | undefined, story: ConcludedStory): Promise<string[]> {
  if (!hooks?.afterStory) return [];
  try {
    return await hooks.afterStory(story);
  } catch (error) {
    return [`${story.planned.story.id}: ${toMeshflowError(error).message}`];
  }
}
