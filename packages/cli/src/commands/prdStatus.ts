import { listPrdFolder, readPrdOutline } from "@meshflow/core";
import { FileRunStore, ProgressLog, StoryMemory } from "@meshflow/runtime/host";
import { EXIT, type ExitCode } from "../exitCodes.js";
import { type Output, printJson } from "../output.js";

/** Options of `flow status <folder>`. */
export interface PrdStatusOptions {
  json?: boolean;
  store?: string;
}

/** One PRD of a folder as `flow status <folder>` reports it. */
interface PrdStatusLine {
  prd: string;
  project: string | null;
  dependsOn: string[];
  passed: number;
  pending: number;
  failed: number;
  blocked: number;
  /** The last three progress entries, oldest first. */
  progress: Array<{ heading: string; time: string }>;
  /** Set when the PRD could not be read as a PRD. */
  error?: string;
}

/**
 * The status of each PRD of a folder: passed stories (from the PRD), failed and blocked ones (their
 * latest outcome in the story memory), pending ones (the rest), and its last progress entries.
 */
function prdStatusLines(folder: string, storeRoot: string): PrdStatusLine[] {
  const memory = new StoryMemory(storeRoot);
  return listPrdFolder(folder).map((entry) => {
    const progress = new ProgressLog(entry.file).last(3);
    const line: PrdStatusLine = {
      prd: entry.name,
      project: null,
      dependsOn: entry.dependsOn.map((d) => d.slice(d.lastIndexOf("/") + 1)),
      passed: 0,
      pending: 0,
      failed: 0,
      blocked: 0,
      progress,
    };
    // Its dependsOn was read (and checked) by listPrdFolder already.
    const outline = readPrdOutline(entry.file);
    if (outline?.project === undefined) return { ...line, error: "not a valid PRD (run flow validate)" };
    const latest = memory.latest(entry.file);
    line.project = outline.project;
    for (const story of outline.stories) {
      const last = latest.get(story.id)?.status;
      if (story.passes) line.passed++;
      else if (last === "failed") line.failed++;
      else if (last === "blocked") line.blocked++;
      else line.pending++;
    }
    return line;
  });
}

/** `flow status <folder>`: one line per PRD with its story counts and last three progress entries. */
export async function prdStatusCommand(folder: string, options: PrdStatusOptions, output: Output): Promise<ExitCode> {
  const lines = prdStatusLines(folder, new FileRunStore(options.store).root);
  if (options.json) {
    printJson(output, { folder, prds: lines });
    return EXIT.ok;
  }
  if (!lines.length) output.out(`${folder}: no PRD files (prd-*.json, *.prd.json)`);
  for (const l of lines) {
    const counts = `✓ ${l.passed} passed  ○ ${l.pending} pending  ✗ ${l.failed} failed  ⊘ ${l.blocked} blocked`;
    const deps = l.dependsOn.length ? `  (after ${l.dependsOn.join(", ")})` : "";
    output.out(l.error ? `${l.prd}  ${l.error}` : `${l.prd}  ${counts}${deps}`);
    for (const p of l.progress) output.out(`    ${p.time}  ${p.heading}`);
  }
  return EXIT.ok;
}
