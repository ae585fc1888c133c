import { createHash } from "node:crypto";
import { parseJsonText } from "../../json/parseJsonText.js";
import type { Problem } from "../../problems/Problem.js";
import { PrdSplitter } from "./PrdSplitter.js";
import { prdChunks } from "./prdChunks.js";
import { type PrdLimits, prdLimits, tooManyStories } from "./prdLimits.js";

/**
 * The exact bytes a read found: their sha256 and where each story is in them, so the write-back finds
 * the stories without scanning the PRD again (while the file is still these bytes).
 */
export interface PrdSource {
  /** sha256 (hex) of the file's bytes. */
  digest: string;
  /** `[start, end)` byte offsets of each `userStories` element, flattened by index: start0, end0, start1, end1, … */
  spans: number[];
}

/** How {@link readPrdSync} and {@link readPrdAsync} read a PRD file. */
export interface PrdReadOptions {
  /** Default: the process's {@link prdLimits}. */
  limits?: PrdLimits;
  /** Each element of `userStories`, parsed, in file order; without it the elements are only split off. */
  onStory?: (value: unknown, index: number) => void;
  /** Digest the bytes: a file read story by story then has a {@link PrdSource}. */
  source?: boolean;
  /** `false`: a file that cannot be split (not strict JSON shaped like a PRD) is left unread, not parsed whole. */
  whole?: boolean;
  /** Keep the file's text and parse it whole (`text`, `value`): the split only counts the stories. */
  keep?: boolean;
}

/** What a read found. */
export interface PrdRead {
  /** The PRD's value with `userStories` emptied when it is an array; undefined when not read (see `problems`). */
  head: unknown;
  /** Invalid JSON (with line and column), or stories that could not be read one at a time. */
  problems: Problem[];
  /** Set when the file was read story by story and `source` was asked for. */
  source?: PrdSource;
  /** With `keep`: the file's text, and its whole value when it is JSON. */
  text?: string;
  value?: unknown;
}

/**
 * The one way meshflow reads a PRD file: a chunk at a time within `limits` (see {@link prdChunks}),
 * each story split off and handed over on its own (a PRD of any size needs memory for one story),
 * counted before it is parsed (`prd_too_large` past `limits.maxStories`). A file that cannot be split
 * is parsed whole, which says where it is not JSON. Yields between chunks (see the two drivers below).
 */
function* readPrd(file: string, options: PrdReadOptions): Generator<void, PrdRead, undefined> {
  const { onStory, limits = prdLimits(), keep = false } = options;
  const hash = options.source ? createHash("sha256") : undefined;
  const spans: number[] = [];
  let broken = false;
  const splitter = new PrdSplitter(({ bytes, start, end }) => {
    if (broken) return;
    if (spans.length / 2 >= limits.maxStories) throw tooManyStories(file, limits);
    let value: unknown;
    try {
      value = onStory && JSON.parse(bytes.toString("utf8"));
    } catch {
      broken = true; // not JSON: the whole parse says where
      return;
    }
    spans.push(start, end);
    onStory?.(value, spans.length / 2 - 1);
  });
  const kept: Buffer[] = [];
  for (const chunk of prdChunks(file, { limits })) {
    hash?.update(chunk);
    if (keep) kept.push(chunk);
    if (!broken) splitter.push(chunk);
    yield;
  }
  let head: unknown;
  try {
    const own = broken ? undefined : splitter.finish();
    if (own !== undefined) head = JSON.parse(own);
  } catch {
    // Not JSON around the stories: the whole parse says where.
  }
  if (head !== undefined && !keep)
    return { head, problems: [], ...(hash ? { source: { digest: hash.digest("hex"), spans } } : {}) };
  if (options.whole === false) return { head: undefined, problems: [] };
  const all = keep ? Buffer.concat(kept) : Buffer.concat([...prdChunks(file, { limits })]);
  const text = all.toString("utf8");
  const parsed = parseJsonText(text);
  const problem = (path: string, message: string): Problem[] => [{ file, path, message, severity: "error" }];
  if (!parsed.ok) {
    const { line, column } = parsed.position;
    return {
      head: undefined,
      problems: problem("$", `invalid JSON at line ${line}, column ${column}: ${parsed.message}`),
      ...(keep && { text }),
    };
  }
  const stories = (parsed.value as { userStories?: unknown } | null)?.userStories;
  const value = keep ? { text, value: parsed.value } : {};
  if (!Array.isArray(stories)) return { head: parsed.value, problems: [], ...value };
  // Counted here for a PRD the split could not take apart, still before any story is handed over.
  if (stories.length > limits.maxStories) throw tooManyStories(file, limits);
  if (spans.length && onStory)
    return {
      head: undefined,
      problems: problem(
        "$.userStories",
        "could not be read one story at a time: is `userStories` given twice? (JSON keeps only the last)",
      ),
    };
  for (const [index, story] of stories.entries()) onStory?.(story, index);
  return { head: { ...(parsed.value as object), userStories: [] }, problems: [], ...value };
}

/** {@link readPrd} at once (the write-back and the outline, which are synchronous). */
export function readPrdSync(file: string, options: PrdReadOptions = {}): PrdRead {
  const steps = readPrd(file, options);
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
}

/** {@link readPrd}, letting the process handle its other work (signals, servers' output) between chunks. */
export async function readPrdAsync(file: string, options: PrdReadOptions = {}): Promise<PrdRead> {
  const steps = readPrd(file, options);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
