import type { RunEvent } from "@meshflow/core";

/**
 * What a run's models cost before a resume, from its events: every finished step's cost and that of
 * the consultations of finished steps. A step that did not finish is left out: the resumed run replays
 * its turns from the journal and counts them again.
 */
export function costSoFar(events: readonly RunEvent[]): number {
  const finished = new Set<string>();
  let usd = 0;
  for (const e of events)
    if (e.type === "step.finished") {
      finished.add(`${e.storyId}\u0000${e.step}`);
      usd += e.tokens?.costUsd ?? 0;
    }
  for (const e of events)
    if (e.type === "consult.done" && finished.has(`${e.storyId}\u0000${e.step}`)) usd += e.tokens?.costUsd ?? 0;
  return usd;
}
