import type { Story } from "@meshflow/core";

/** One story a run handles, in run order. */
export interface PlannedStory {
  story: Story;
  /** Position in the PRD file. */
  index: number;
  /** `passes: true` when the run started: reported as skipped. */
  skipped: boolean;
  /** The routed specialist of each step, in `mavenSteps` order. */
  specialists: string[];
}

/** What the preflight hands the machine: the stories to run and where the PRD lives. */
export interface RunPlan {
  prdFile: string;
  prdDir: string;
  stories: PlannedStory[];
}
