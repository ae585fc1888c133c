import type { HarnessChoice, ModelPrice, PrdSource, Story } from "@meshflow/core";

/** One story a run handles, in run order. */
export interface PlannedStory {
  /** The story as validated (read back from the run's story file when the plan came from a preflight). */
  readonly story: Story;
  id: string;
  /** The story's `mavenSteps`. */
  steps: readonly number[];
  /** Position in the PRD file. */
  index: number;
  /** `passes: true` when the run started: reported as skipped. */
  skipped: boolean;
  /** The routed specialist of each step, in `mavenSteps` order. */
  specialists: string[];
  /** The model that thinks for its steps (`--model`, the story's, the PRD's, `FLOW_MODEL`), if any. */
  model?: string;
  /** The story's and the PRD's `harness`, when either names one (`--harness` wins over both). */
  harness?: { story?: HarnessChoice; prd?: HarnessChoice };
  /** The PRD's `prices`, over the run's price table (one object, shared by the PRD's stories). */
  prices?: Readonly<Record<string, ModelPrice>>;
}

/** What the preflight hands the machine: the stories to run and where the PRD lives. */
export interface RunPlan {
  prdFile: string;
  /** The folder `verify` working directories are relative to: the PRD's, or the one a run was given (`StartRunOptions.prdDir`). */
  prdDir: string;
  stories: PlannedStory[];
  /**
   * The PRD's bytes as the preflight read them (digest, and where each story is, by PRD position):
   * while the file is unchanged, the write-back edits the marked stories in a stream.
   */
  source?: PrdSource;
  /** Releases what the plan holds (its story file); its stories cannot be read afterwards. */
  close(): void;
}
