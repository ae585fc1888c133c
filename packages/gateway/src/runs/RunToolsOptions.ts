import type { RunEvent } from "@meshflow/core";
import type { RunEnvironmentOptions } from "@meshflow/runtime/host";

/**
 * Where the gateway's run tools find PRDs, specialists, routing, skills, models and the run store: the
 * runtime's run environment, whose tool plane uses the gateway's one guard (an emergency stop reaches
 * runs too, an unlock releases them).
 */
export interface RunToolsOptions extends Omit<RunEnvironmentOptions, "guard" | "callsPerMinute"> {
  /** PRD files must lie inside this folder (default: the working folder). */
  root?: string;
  /** A listener for one run's events (traces), made for each run `flow_run_prd` starts. */
  traceRun?: (prd: string) => ((event: RunEvent) => void) | undefined;
}
