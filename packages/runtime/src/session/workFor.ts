import { runVerify } from "../gate/runVerify.js";
import { reusableVerifies } from "../internal/verifiedCommands.js";
import type { ChiefContext, ChiefEvent } from "../machine/chiefAnalyst.js";
import { concludeStory } from "./concludeStory.js";
import { openRun } from "./openRun.js";
import type { SessionMode } from "./SessionMode.js";
import type { SessionState } from "./SessionState.js";

/**
 * The work the machine's current state asks for (preflight, a step's think(), the gate, the story's
 * conclusion), resolving to the event that reports its result; undefined for a state with no work.
 */
export function workFor(
  state: SessionState,
  mode: SessionMode,
  machine: { value: unknown; context: ChiefContext },
): Promise<ChiefEvent> | undefined {
  const { value, context } = machine;
  switch (value) {
    case "preflight":
      return mode.kind === "start"
        ? openRun(state, mode.options)
        : Promise.resolve({
            type: "PREFLIGHT_DONE",
            prd: mode.checked.plan.prdFile,
            stories: mode.handle.record().stories,
          });
    case "working":
      return state
        .requireRunner()
        .think(
          state.storyOf(context.story),
          context.step,
          context.steps.map((s) => ({
            step: s.step,
            specialist: s.specialist,
            outcome: { status: s.status, summary: s.summary, evidence: s.evidence },
          })),
        )
        .then((result) => ({ type: "STEP_DONE", result }));
    case "gating":
      return runVerify(
        state.storyOf(context.story).story.verify ?? [],
        state.requirePlan().prdDir,
        state.controller.signal,
        // Commands a step already ran and passed, with nothing written since, are not run again.
        reusableVerifies(context.steps),
      ).then((gate) => ({ type: "GATE_DONE", gate }));
    case "concluding":
      // Async, so an error concluding the story is the run's `FAILED` event like any other work's.
      return (async () => concludeStory(state, context))();
    default:
      return undefined;
  }
}
