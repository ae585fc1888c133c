import { runVerify } from "../gate/runVerify.js";
import { reusableVerifies } from "../internal/verifiedCommands.js";
import type { ChiefEvent, StoryConcluded } from "../machine/chiefAnalyst.js";
import type { StoryContext, StoryEvent, StoryPhase } from "../machine/storyActor.js";
import { hookedStep } from "../workflow/StoryHooks.js";
import type { StoryWorkspace } from "../workflow/worktrees/StoryWorkspaces.js";
import { concludeStory } from "./concludeStory.js";
import { maskGate } from "./maskGate.js";
import { openRun } from "./openRun.js";
import type { SessionMode } from "./SessionMode.js";
import type { SessionState } from "./SessionState.js";

/** The preflight of a new run, or what a resumed run's already did. */
export function preflightWork(state: SessionState, mode: SessionMode): Promise<ChiefEvent> {
  return mode.kind === "start"
    ? openRun(state, mode.options)
    : Promise.resolve({
        type: "PREFLIGHT_DONE",
        prd: mode.checked.plan.prdFile,
        stories: mode.handle.record().stories,
      });
}

/** The work of one phase of a story: its current step's think(), its gate, or its conclusion. */
export function storyWork(
  state: SessionState,
  phase: StoryPhase,
  cursor: StoryContext,
): Promise<StoryEvent | StoryConcluded> {
  switch (phase) {
    case "working": {
      const steps = cursor.steps.map((s) => ({
        step: s.step,
        specialist: s.specialist,
        outcome: { status: s.status, summary: s.summary, evidence: s.evidence },
      }));
      const planned = state.storyOf(cursor.story);
      return openWorkspace(state, cursor.story)
        .then(() =>
          hookedStep(
            state.deps.hooks,
            state.requirePlan(),
            planned,
            { runId: state.runId, step: cursor.step, steps },
            (memory) => state.requireRunner().think(planned, cursor.step, memory),
          ),
        )
        .then((result) => ({ type: "STEP_DONE", result }));
    }
    case "gating":
      return openWorkspace(state, cursor.story).then((workspace) =>
        runVerify(
          state.storyOf(cursor.story).story.verify ?? [],
          workspace?.prdDir ?? state.requirePlan().prdDir,
          state.controller.signal,
          // Commands a step already ran and passed, with nothing written since, are not run again.
          reusableVerifies(cursor.steps),
        ).then((gate): StoryEvent => ({ type: "GATE_DONE", gate: maskGate(gate, state.deps.plane.mask) })),
      );
    case "concluding":
      return concludeStory(state, cursor);
  }
}

/** The story's own workspace, when stories are isolated (made at its first step, found again on resume). */
async function openWorkspace(state: SessionState, story: number): Promise<StoryWorkspace | undefined> {
  const { workspaces } = state.deps;
  if (!workspaces) return undefined;
  return workspaces.open(state.runId, state.storyOf(story), state.requirePlan());
}
