import type { PlannedStory } from "../RunPlan.js";
import type { StoryWorkspace } from "../workflow/worktrees/StoryWorkspaces.js";
import type { SessionState } from "./SessionState.js";

/** The id under which a story's conflict resolution step runs (its own journal keys and events). */
function resolutionId(storyId: string): string {
  return `${storyId}.merge`;
}

/**
 * Gives a story's merge conflict to `specialist` (`--resolve-conflicts`) as one more step, in the
 * story's worktree where the conflict markers are: the story's last step, with its servers, told which
 * files conflict. It runs as the story `<id>.merge` (its calls are journaled apart from the story's own
 * steps). Resolves to whether the step passed.
 */
export async function resolveConflict(
  state: SessionState,
  planned: PlannedStory,
  specialist: string,
  conflicted: readonly string[],
  workspace: StoryWorkspace,
): Promise<{ passed: boolean; summary: string }> {
  const step = planned.steps.at(-1) ?? 1;
  const id = resolutionId(planned.id);
  const task = [
    `Merging this story's branch into the run's branch conflicts in: ${conflicted.join(", ")}.`,
    `The files in ${workspace.dir} hold git's conflict markers (<<<<<<<, =======, >>>>>>>).`,
    "Edit each file so it keeps what both sides meant, with no conflict marker left, then pass the step.",
  ].join(" ");
  const resolver: PlannedStory = {
    ...planned,
    id,
    story: {
      ...planned.story,
      id,
      description: `${planned.story.description}\n\n${task}`.trim(),
      mavenSteps: [step],
      calls: {},
    },
    steps: [step],
    specialists: [specialist],
  };
  const result = await state.requireRunner().think(resolver, 0, []);
  state.requireRunner().forget(resolver);
  return {
    passed: result.status === "passed",
    summary: `${specialist} ${result.status} the resolution: ${result.summary}`,
  };
}
