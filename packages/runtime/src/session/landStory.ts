import { toMeshflowError } from "@meshflow/core";
import type { GateResult } from "../gate/runVerify.js";
import { runVerify } from "../gate/runVerify.js";
import type { StoryContext } from "../machine/storyActor.js";
import type { Landing } from "../workflow/worktrees/StoryWorkspaces.js";
import { maskGate } from "./maskGate.js";
import { resolveConflict } from "./resolveConflict.js";
import type { SessionState } from "./SessionState.js";

/** A story's conclusion after landing: what concluding records (the landing's outcome replaces the story's). */
export interface Landed {
  status: StoryContext["storyStatus"];
  summary: string;
  gate: GateResult | undefined;
  landing?: Landing;
}

/**
 * Lands an isolated story that passed in its workspace (committed there, merged into the run's branch,
 * its gate run again on the merged tree); a story that did not pass keeps its workspace. Without
 * isolated stories, the story's outcome as it is.
 */
export async function landStory(
  state: SessionState,
  context: Pick<StoryContext, "story" | "storyStatus" | "storySummary" | "steps" | "gate">,
): Promise<Landed> {
  const { workspaces } = state.deps;
  const planned = state.storyOf(context.story);
  const same: Landed = { status: context.storyStatus, summary: context.storySummary, gate: context.gate };
  if (!workspaces) return same;
  if (context.storyStatus !== "passed" || !context.gate?.passed) {
    await workspaces.keep(planned);
    return same;
  }
  const plan = state.requirePlan();
  const landing = await workspaces.land({
    runId: state.runId,
    plan,
    planned,
    specialists: context.steps.map((s) => s.specialist),
    ...(state.resolveConflicts
      ? {
          resolve: (conflicted, workspace) =>
            resolveConflict(state, planned, state.resolveConflicts ?? "", conflicted, workspace),
        }
      : {}),
    gate: (prdDir) =>
      runVerify(planned.story.verify ?? [], prdDir, state.controller.signal).then((gate) =>
        maskGate(gate, state.deps.plane.mask),
      ),
  });
  state.warnings.push(...landing.warnings);
  const summary = landing.status === "passed" ? `${context.storySummary}; ${landing.summary}` : landing.summary;
  return { status: landing.status, summary, gate: landing.gate ?? context.gate, landing };
}

/**
 * Closes the run's story workspaces (their servers stop; with `finished`, the run's worktree folder goes
 * when nothing is left in it). Resolves to the workspaces kept, by story id, for the run's record.
 */
export async function closeWorkspaces(
  state: SessionState,
  finished: boolean,
): Promise<Record<string, string> | undefined> {
  const { workspaces } = state.deps;
  if (!workspaces) return undefined;
  try {
    const kept = await workspaces.close(state.runId, finished);
    return kept.size ? Object.fromEntries(kept) : undefined;
  } catch (error) {
    state.warnings.push(`the stories' worktrees could not be tidied: ${toMeshflowError(error).message}`);
    return undefined;
  }
}
