import { readFile } from "node:fs/promises";
import { MeshflowError } from "../errors/MeshflowError.js";
import { parseJsonText } from "../json/parseJsonText.js";
import type { Problem } from "../problems/Problem.js";
import type { Prd, Story } from "./PrdSchema.js";
import { splitPrdText } from "./splitPrdText.js";
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
 * read; every other problem (invalid JSON with line and column, schema, semantics) is in `problems`.
 */
export async function loadPrdFile(file: string, context: Omit<PrdValidationContext, "file">): Promise<LoadedPrd> {
  return parsePrdText(file, await readPrdText(file), context);
}

async function readPrdText(file: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (cause) {
    const reason = (cause as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : String(cause);
    throw new MeshflowError("file_not_found", `${file}: cannot read PRD: ${reason}`, {
      cause,
      details: { file },
    });
  }
}

function parsePrdText(file: string, text: string, context: Omit<PrdValidationContext, "file">): LoadedPrd {
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
  const { prd, problems } = validatePrd(parsed.value, { ...context, file });
  return { file, text, prd, problems };
}

/** A PRD file read one story at a time: its own fields when valid, and every problem. */
export interface PrdScan {
  file: string;
  head: PrdHead | undefined;
  problems: Problem[];
}

/**
 * Reads and validates a PRD file like {@link loadPrdFile}, handing each valid story to `onStory` (in
 * file order, with the PRD's own fields) instead of keeping them: only one story's value exists at a
 * time, so the memory a PRD needs does not grow with its stories. The caller keeps what it needs of
 * each. The PRD is valid when `problems` has no error (stories already handed over count only then).
 */
export async function scanPrdFile(
  file: string,
  context: Omit<PrdValidationContext, "file">,
  onStory: (story: Story, index: number, head: PrdHead | undefined) => void,
): Promise<PrdScan> {
  const text = await readPrdText(file);
  const parts = splitPrdText(text);
  if (!parts) {
    // Not strict JSON or not shaped like a PRD: the whole parse says what is wrong.
    const loaded = parsePrdText(file, text, context);
    if (!loaded.prd) return { file, head: undefined, problems: loaded.problems };
    const { userStories, ...head } = loaded.prd;
    userStories.forEach((story, index) => {
      onStory(story, index, head);
    });
    return { file, head, problems: loaded.problems };
  }
  const { head, problems } = validatePrdHead(JSON.parse(parts.head), file);
  const checker = new StoryChecker({ ...context, file });
  const { spans } = parts;
  for (let i = 0; i < spans.length; i += 2) {
    const story = checker.check(JSON.parse(text.slice(spans[i], spans[i + 1])), i / 2);
    if (story) onStory(story, i / 2, head);
  }
  problems.push(...checker.problems);
  return { file, head, problems: sortProblems(problems) };
}
