import { createHash } from "node:crypto";
import { dirname, resolve } from "node:path";
import { projectRoot } from "../fs/projectRoot.js";
import { parseJsonText } from "../json/parseJsonText.js";
import type { Problem } from "../problems/Problem.js";
import type { Prd, Story } from "./PrdSchema.js";
import { PrdSplitter } from "./PrdSplitter.js";
import { type PrdLimits, prdLimits, tooManyStories } from "./prdLimits.js";
import { readPrdChunks } from "./readPrdChunks.js";
import {
  type PrdHead,
  type PrdValidationContext,
  StoryChecker,
  sortProblems,
  validatePrd,
  validatePrdHead,
} from "./validatePrd.js";

/** A PRD file as read from disk: its exact text, the typed PRD when valid, and every problem. */
export interface LoadedPrd {
  file: string;
  text: string;
  prd: Prd | undefined;
  problems: Problem[];
}

/**
 * Reads and validates a PRD file. Never writes to it. Throws `file_not_found` when the file cannot be
 * read, and `prd_too_large` past `limits` (default {@link prdLimits}: the process's settings) before
 * the whole file is parsed; every other problem (invalid JSON with line and column, schema, semantics)
 * is in `problems`.
 */
export async function loadPrdFile(
  file: string,
  context: Omit<PrdValidationContext, "file">,
  limits: PrdLimits = prdLimits(),
): Promise<LoadedPrd> {
  return parsePrdText(file, await readPrdText(file, limits), context, limits);
}

/** The file's text, its bytes and stories counted as they are read, so nothing over the limits is parsed. */
async function readPrdText(file: string, limits: PrdLimits): Promise<string> {
  const chunks: Buffer[] = [];
  let stories = 0;
  const counter = new PrdSplitter(() => {
    if (++stories > limits.maxStories) throw tooManyStories(file, limits);
  });
  await readPrdChunks(file, limits, (chunk) => {
    chunks.push(chunk);
    counter.push(chunk);
  });
  return Buffer.concat(chunks).toString("utf8");
}

/** Where a PRD file sits: its folder and its project, which a `verify` cwd must stay inside. */
function locationOf(file: string): { prdDir: string; projectDir: string } {
  const prdDir = dirname(resolve(file));
  return { prdDir, projectDir: projectRoot(prdDir) };
}

function parsePrdText(
  file: string,
  text: string,
  context: Omit<PrdValidationContext, "file">,
  limits: PrdLimits,
): LoadedPrd {
  const parsed = parseJsonText(text);
  if (!parsed.ok) {
    const { line, column } = parsed.position;
    return {
      file,
      text,
      prd: undefined,
      problems: [
        {
          file,
          path: "$",
          message: `invalid JSON at line ${line}, column ${column}: ${parsed.message}`,
          severity: "error",
        },
      ],
    };
  }
  // A PRD the streaming count could not take apart (comments, not shaped like a PRD) is counted here,
  // still before any story is validated.
  const stories = (parsed.value as { userStories?: unknown } | null)?.userStories;
  if (Array.isArray(stories) && stories.length > limits.maxStories) throw tooManyStories(file, limits);
  const { prd, problems } = validatePrd(parsed.value, { ...context, file, location: locationOf(file) });
  return { file, text, prd, problems };
}

/**
 * The exact bytes a scan read: their sha256 and where each story is in them, so the write-back can
 * change a story's fields without reading the whole PRD again (while the file is still these bytes).
 */
export interface PrdSource {
  /** sha256 (hex) of the file's bytes. */
  digest: string;
  /** `[start, end)` byte offsets of each `userStories` element, flattened by index: start0, end0, start1, end1, … */
  spans: number[];
}

/** A PRD file read one story at a time: its own fields when valid, and every problem. */
export interface PrdScan {
  file: string;
  head: PrdHead | undefined;
  problems: Problem[];
  /** Set when the PRD was read story by story (strict JSON shaped like a PRD). */
  source?: PrdSource;
}

/**
 * Reads and validates a PRD file like {@link loadPrdFile}, handing each valid story to `onStory` (in
 * file order; the PRD's own fields are in the result) instead of keeping them: the file is read a chunk at a time
 * and only one story's value exists at a time, so the memory a PRD needs does not grow with its
 * stories. The caller keeps what it needs of each. The PRD is valid when `problems` has no error
 * (stories already handed over count only then). Throws `prd_too_large` past `limits` (default
 * {@link prdLimits}): the file's size before it is read, its stories as they are split off.
 */
export async function scanPrdFile(
  file: string,
  context: Omit<PrdValidationContext, "file">,
  onStory: (story: Story, index: number) => void,
  limits: PrdLimits = prdLimits(),
): Promise<PrdScan> {
  const checker = new StoryChecker({ ...context, file, location: locationOf(file) });
  const spans: number[] = [];
  const hash = createHash("sha256");
  let handed = 0;
  let broken: unknown;
  const splitter = new PrdSplitter(({ bytes, start, end }) => {
    if (broken !== undefined) return;
    // Counted before the story is parsed: past the limit the scan stops here.
    if (spans.length / 2 >= limits.maxStories) throw tooManyStories(file, limits);
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString("utf8"));
    } catch (error) {
      // Not JSON: the whole parse below says where.
      broken = error;
      return;
    }
    const index = spans.length / 2;
    spans.push(start, end);
    const story = checker.check(value, index);
    if (story) {
      handed++;
      onStory(story, index);
    }
  });
  await readPrdChunks(file, limits, (chunk) => {
    hash.update(chunk);
    if (broken === undefined) splitter.push(chunk);
  });
  const headText = broken === undefined ? splitter.finish() : undefined;
  let head: PrdHead | undefined;
  const problems: Problem[] = [];
  if (headText !== undefined) {
    try {
      const checked = validatePrdHead(JSON.parse(headText), file);
      head = checked.head;
      problems.push(...checked.problems);
    } catch {
      // Not JSON around the stories: the whole parse says where.
      broken = true;
    }
  }
  if (headText === undefined || broken !== undefined) {
    // Not strict JSON or not shaped like a PRD: the whole parse says what is wrong.
    const loaded = parsePrdText(file, await readPrdText(file, limits), context, limits);
    if (handed && loaded.prd)
      return {
        file,
        head: undefined,
        problems: [
          {
            file,
            path: "$.userStories",
            message: "could not be read one story at a time: is `userStories` given twice? (JSON keeps only the last)",
            severity: "error",
          },
        ],
      };
    if (!loaded.prd) return { file, head: undefined, problems: loaded.problems };
    const { userStories, ...whole } = loaded.prd;
    userStories.forEach((story, index) => {
      onStory(story, index);
    });
    return { file, head: whole, problems: loaded.problems };
  }
  problems.push(...checker.finish());
  return { file, head, problems: sortProblems(problems), source: { digest: hash.digest("hex"), spans } };
}
