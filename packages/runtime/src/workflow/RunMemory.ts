import type { StepOutcome, StepStatus } from "@meshflow/core";

/** An earlier step of the same story, as `ctx.memory` shows it. */
export interface StepMemory {
  step: number;
  specialist: string;
  outcome: StepOutcome;
}

/** A finished story, as the run store's story memory keeps it and `ctx.memory.stories` shows it. */
export interface StoryRecall {
  /** The PRD file name (e.g. `prd-auth.json`). */
  prd: string;
  storyId: string;
  title: string;
  status: StepStatus;
  summary: string;
  /** Files its steps changed (relative to the repository or the PRD's folder), when known. */
  files: string[];
  /** What its specialists noted as learnings (`ctx.log.learn`). */
  learnings: string[];
  runId: string;
  /** The commit of the story (`--commit`), when one was made. */
  commit?: string;
  /** ISO time the story concluded. */
  time: string;
}

/** One learning of an earlier story, as `ctx.memory.learnings` shows it. */
export interface Learning {
  prd: string;
  storyId: string;
  text: string;
  time: string;
}

/** What a run remembers beyond the current story: finished stories and learnings, newest first. */
export interface Recall {
  stories: readonly StoryRecall[];
  learnings: readonly Learning[];
}

/**
 * `ctx.memory`: an array of the story's earlier steps (as it always was), with what the run remembers
 * of other stories on top.
 */
export interface RunMemory extends ReadonlyArray<StepMemory> {
  /** The story's earlier steps, in order (the array itself). */
  readonly steps: readonly StepMemory[];
  /** The PRD's finished stories, newest first (bounded). */
  readonly stories: readonly StoryRecall[];
  /** Learnings of this PRD's and related PRDs' stories, newest first (bounded). */
  readonly learnings: readonly Learning[];
}

const EMPTY: Recall = { stories: [], learnings: [] };

function isRunMemory(value: readonly StepMemory[]): value is RunMemory {
  return Array.isArray((value as Partial<RunMemory>).stories) && Array.isArray((value as Partial<RunMemory>).learnings);
}

/** Builds `ctx.memory` from a story's earlier steps and what the run recalls (an existing one is kept). */
export function runMemory(steps: readonly StepMemory[], recall: Recall = EMPTY): RunMemory {
  if (isRunMemory(steps) && recall === EMPTY) return steps;
  const list = [...steps];
  return Object.assign(list, { steps: [...steps], stories: recall.stories, learnings: recall.learnings });
}
