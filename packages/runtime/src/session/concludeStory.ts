import { sumTokens } from "@meshflow/core";
import type { StoryConcluded } from "../machine/chiefAnalyst.js";
import type { StoryContext } from "../machine/storyActor.js";
import { afterStory } from "../workflow/StoryHooks.js";
import { landStory } from "./landStory.js";
import type { SessionState } from "./SessionState.js";

/**
 * Concludes a story: its evidence is recorded, and only when every step and the
 * gate passed is the story marked `passes: true` in the PRD. The run's story hooks (the PRD workflow)
 * run in between. Resolves to the conclusion the chief analyst counts.
 */
export async function concludeStory(
  state: SessionState,
  context: Pick<StoryContext, "story" | "storyStatus" | "storySummary" | "steps" | "gate">,
): Promise<StoryConcluded> {
  const planned = state.storyOf(context.story);
  const handle = state.requireHandle();
  // An isolated story lands in the run's branch first: the outcome recorded is the landed one.
  const { status, summary, gate, landing } = await landStory(state, context);
  const { steps } = context;
  handle.writeEvidence(planned.id, {
    runId: handle.runId,
    title: planned.story.title,
    status,
    summary,
    steps: steps.map((s) => ({
      step: s.step,
      specialist: s.specialist,
      status: s.status,
      summary: s.summary,
      calls: s.calls,
      evidence: s.evidence,
      ...(s.tokens ? { tokens: s.tokens } : {}),
      ...(s.consults ? { consults: s.consults } : {}),
    })),
    gate: gate ?? null,
    time: new Date().toISOString(),
  });
  // The PRD workflow (progress log, story memory, a commit) sees the story before the PRD marks it.
  state.warnings.push(
    ...(await afterStory(state.deps.hooks, {
      runId: handle.runId,
      plan: state.requirePlan(),
      planned,
      status,
      summary,
      steps,
      gate,
      ...(landing
        ? {
            isolated: {
              files: landing.files,
              ...(landing.commit && landing.message ? { commit: landing.commit, message: landing.message } : {}),
            },
          }
        : {}),
    })),
  );
  if (status === "passed" && gate?.passed) state.marks().mark(planned.id, planned.index);
  // The story's calls are journaled for good; this run will not look them up again.
  handle.journal.release?.(steps.flatMap((s) => s.calls.map((c) => c.key)));
  state.requireRunner().forget(planned);
  return { type: "CONCLUDED", story: context.story, status, summary, tokens: sumTokens(steps.map((s) => s.tokens)) };
}
