import type { StateValue } from "xstate";
import type { ChiefContext } from "../machine/chiefAnalyst.js";
import type { ParallelContext } from "../machine/parallelChief.js";
import type { Preflight } from "../preflight.js";
import type { StartRunOptions } from "../RunDependencies.js";
import type { RunHandle } from "../store/RunStore.js";

/** How a session began: a new run, or a stopped run resumed from its store. */
export type SessionMode =
  | { kind: "start"; options: StartRunOptions }
  | { kind: "resume"; handle: RunHandle; checked: Preflight; snapshot: unknown };

/**
 * What `snapshot.ndjson` holds per line: the machine's state value and context; during a
 * consultation, xstate's whole persisted snapshot, whose `children` hold the consultations.
 */
export interface PersistedRun {
  value: StateValue;
  /** The flat machine's context, or the parallel machine's (`--parallel` above 1). */
  context: ChiefContext | ParallelContext;
  children?: Record<string, unknown>;
}
