/**
 * A piece of what a model says while its turn runs, for a live view. Transient: it is no run event,
 * never journaled nor stored, and a turn answered from the journal or a cassette sends none (its
 * `model.turn` event carries the text). Only a host that listens gets it; then the turns are streamed.
 */
export interface ModelTextDelta {
  runId: string;
  storyId: string;
  step: number;
  /** The consultation whose model speaks, when it is not the step's own. */
  consult?: string;
  /** The turn's number within the step (or consultation), as its `model.turn` event will carry it. */
  turn: number;
  /** The new piece of text. */
  delta: string;
  /** The turn's text so far (it starts again when a failed request is retried). */
  text: string;
}
