import type { Preflight } from "../preflight.js";
import type { StartRunOptions } from "../RunDependencies.js";
import type { RunHandle } from "../store/RunStore.js";

/** How a session began: a new run, or a stopped run resumed from its store. */
export type SessionMode =
  | { kind: "start"; options: StartRunOptions }
  | { kind: "resume"; handle: RunHandle; checked: Preflight; snapshot: unknown };
