import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { MeshflowError } from "@meshflow/core";
import {
  effectiveStatus,
  type FileRunStore,
  Git,
  ProgressLog,
  removeRunWorktrees,
  resetStories,
} from "@meshflow/runtime/host";
import { EXIT, type ExitCode } from "../exitCodes.js";
import { type Output, printJson, storyList } from "../output.js";
import { assertPrdFile } from "./prdTargets.js";

/** Options of `flow reset`. */
export interface ResetOptions {
  story?: string[];
  archive?: boolean;
  store?: string;
  json?: boolean;
}

/** `flow reset <prd>`: stories back to `passes: false` with empty notes; `--archive` moves the progress log away. */
export async function resetCommand(file: string, options: ResetOptions, output: Output): Promise<ExitCode> {
  if (!existsSync(file)) throw new MeshflowError("file_not_found", `${file}: no such PRD file`);
  // Which stories of which PRDs to reset is the user's call, file by file: a folder is refused by name.
  assertPrdFile(file, "flow reset");
  const { FileRunStore } = await import("@meshflow/runtime/host");
  const progress = new ProgressLog(file);
  // Checked first: a refused archive folder leaves the PRD as it was.
  if (options.archive && existsSync(progress.file)) progress.archiveFolder();
  const result = resetStories(file, options.story, new FileRunStore(options.store).root);
  const archived = options.archive ? progress.archive() : undefined;
  const worktrees = await removeWorktrees(file, new FileRunStore(options.store));
  if (options.json)
    printJson(output, {
      prd: file,
      reset: result.reset,
      changed: result.changed,
      archived: archived ?? null,
      worktrees,
    });
  else {
    output.out(
      result.changed
        ? `${file}: reset ${storyList(result.reset)} (passes false, notes cleared)`
        : `${file}: ${storyList(result.reset) || "no story"} already reset; file unchanged`,
    );
    if (options.archive) output.out(archived ? `progress log moved to ${archived}` : "no progress log to archive");
    for (const dir of worktrees) output.out(`removed the worktree ${dir}`);
  }
  return EXIT.ok;
}

/**
 * Removes the story worktrees and branches (`flow run --parallel` in a repository) of the PRD's runs
 * that are not running: a reset PRD's stories start again from the branch. Returns the folders removed.
 */
async function removeWorktrees(file: string, store: FileRunStore): Promise<string[]> {
  const prd = resolve(file);
  const runs = (await store.list()).filter(
    (r) => r.prd === prd && r.options.isolate === "worktree" && effectiveStatus(r) !== "running",
  );
  if (!runs.length) return [];
  const git = await Git.find(dirname(prd));
  if (!git) return [];
  const removed: string[] = [];
  for (const run of runs) removed.push(...(await removeRunWorktrees(git, run.runId)));
  return removed;
}
