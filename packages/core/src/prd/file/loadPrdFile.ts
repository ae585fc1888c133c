import { dirname, resolve } from "node:path";
import { projectRoot } from "../../fs/projectRoot.js";
import type { Problem } from "../../problems/Problem.js";
import type { Prd, Story } from "../PrdSchema.js";
import {
  type PrdHead,
  type PrdValidationContext,
  StoryChecker,
  sortProblems,
  validatePrd,
  validatePrdHead,
} from "../validatePrd.js";
import type { PrdLimits } from "./prdLimits.js";
import { type PrdSource, readPrdAsync } from "./readPrd.js";

/** A PRD file as read from disk: its exact text, the typed PRD when valid, and every problem. */
export interface LoadedPrd {
  file: string;
  text: string;
  prd: Prd | undefined;
  problems: Problem[];
}

/** A PRD file read one story at a time: its own fields when valid, and every problem. */
export interface PrdScan {
  file: string;
  head: PrdHead | undefined;
  problems: Problem[];
  /** Set when the PRD was read story by story (strict JSON shaped like a PRD). */
  source?: PrdSource;
}

/** Where a PRD's `verify` cwds must stay: its folder and its project. */
function location(file: string): PrdValidationContext["location"] {
  const prdDir = dirname(resolve(file));
  return { prdDir, projectDir: projectRoot(prdDir) };
}

/**
 * Reads and validates a PRD file, never writing it. Throws `file_not_found` when it cannot be read
 * and `prd_too_large` past `limits` (default the process's `prdLimits`) before it is parsed; every
 * other problem (invalid JSON with line and column, schema, semantics) is in `problems`.
 */
export async function loadPrdFile(
  file: string,
  context: Omit<PrdValidationContext, "file">,
  limits?: PrdLimits,
): Promise<LoadedPrd> {
  // The text is kept: its stories are counted as they are split off, then it is parsed whole (one
  // native parse is cheaper than one per story when every story is kept anyway).
  const read = await readPrdAsync(file, { ...(limits && { limits }), keep: true });
  const text = read.text ?? "";
  if (read.problems.length) return { file, text, prd: undefined, problems: read.problems };
  return { file, text, ...validatePrd(read.value, { ...context, file, location: location(file) }) };
}

/**
 * {@link loadPrdFile} handing each valid story to `onStory` (in file order; the PRD's own fields are
 * in the result) instead of keeping them: only one story's value exists at a time, so the memory a
 * PRD needs does not grow with its stories. Valid when `problems` has no error.
 */
export async function scanPrdFile(
  file: string,
  context: Omit<PrdValidationContext, "file">,
  onStory: (story: Story, index: number) => void,
  limits?: PrdLimits,
): Promise<PrdScan> {
  const checker = new StoryChecker({ ...context, file, location: location(file) });
  const read = await readPrdAsync(file, {
    ...(limits && { limits }),
    source: true,
    onStory: (value, index) => {
      const story = checker.check(value, index);
      if (story) onStory(story, index);
    },
  });
  if (read.problems.length) return { file, head: undefined, problems: read.problems };
  const { head, problems } = validatePrdHead(read.head, file);
  problems.push(...checker.finish());
  return { file, head, problems: sortProblems(problems), ...(read.source && { source: read.source }) };
}
