import type { ChiefContext, ChiefEvent } from "../machine/chiefAnalyst.js";
import type { SessionState } from "./SessionState.js";

/**
 * Concludes the machine's current story: its evidence is recorded, and only when every step and the
 * gate passed is the story marked `passes: true` in the PRD.
 */
export function concludeStory(state: SessionState, context: ChiefContext): ChiefEvent {
  const planned = state.storyOf(context.story);
  const handle = state.requireHandle();
  const { storyStatus: status, storySummary: summary, steps, gate } = context;
  handle.writeEvidence(planned.story.id, {
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
    })),
    gate: gate ?? null,
    time: new Date().toISOString(),
  });
  if (status === "passed" && gate?.passed) state.marks().mark(planned.story.id);
  state.requireRunner().forget(planned);
  return { type: "CONCLUDED", status, summary };
}
