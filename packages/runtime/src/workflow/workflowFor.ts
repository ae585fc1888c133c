import { dirname, resolve } from "node:path";
import { MeshflowError, readPrdOutline } from "@meshflow/core";
import type { RunOptions } from "../store/RunRecord.js";
import { Git } from "./Git.js";
import { assertCleanTree, bookkeeping, prdWorkflow, type StoryCommit } from "./prdWorkflow.js";
import type { StoryHooks } from "./StoryHooks.js";

/** How a run started outside `flow run` (the gateway, a queue worker) gets the PRD workflow. */
export interface WorkflowForOptions {
  /**
   * The PRD as its project knows it: its progress log is written beside it, its story memory is kept
   * under its path, its repository is the one stories are committed to.
   */
  prdFile: string;
  /** The file to read the PRD's `git` and `dependsOn` from, when the run reads a copy (default `prdFile`). */
  readFrom?: string;
  /** The run store's folder (the story memory lives in its `memory/`). */
  storeRoot: string;
  /** Stories at most in progress at once: commits and stories side by side are refused. */
  parallel?: number;
  /** Commit even though the repository has uncommitted changes (default: refused with `tree_dirty`). */
  allowDirty?: boolean;
  /** Told of each commit made. */
  onCommit?: (commit: StoryCommit) => void;
}

/** The workflow of a run: its hooks, and what its record keeps of it (so `flow resume` does the same). */
export interface RunWorkflow {
  hooks: StoryHooks;
  workflow: NonNullable<RunOptions["workflow"]>;
}

/**
 * The PRD workflow for a run, as `flow run` has it: a progress log section and a story-memory entry
 * per concluded story, the learnings of the PRDs it `dependsOn`, and with `"git": {"commit": true}` a
 * commit per story that passed its gate. Refuses what `flow run` refuses before a committing run:
 * `usage` for a PRD outside a repository or stories side by side, `tree_dirty` for uncommitted changes.
 */
export async function workflowFor(options: WorkflowForOptions): Promise<RunWorkflow> {
  const prdFile = resolve(options.prdFile);
  const head = prdHead(options.readFrom ?? prdFile);
  const { commit } = head;
  if (commit && (options.parallel ?? 1) > 1)
    throw new MeshflowError(
      "usage",
      `${prdFile}: "git": {"commit": true} commits each story's changed files, which stories side by side would mix; run it without parallel stories`,
    );
  const git = await Git.find(dirname(prdFile));
  if (commit && !git)
    throw new MeshflowError("usage", `${prdFile} is not in a git repository: "git": {"commit": true} needs one`);
  if (git && commit && !options.allowDirty)
    await assertCleanTree(git, bookkeeping(git, [prdFile, ...head.dependsOn], options.storeRoot));
  const workflow = { commit, ...(head.dependsOn.length ? { related: head.dependsOn } : {}) };
  const hooks = prdWorkflow({
    prdFile,
    storeRoot: options.storeRoot,
    related: head.dependsOn,
    commit,
    ...(git ? { git } : {}),
    ...(options.onCommit ? { onCommit: options.onCommit } : {}),
  });
  return { hooks, workflow };
}

/**
 * The PRD's own fields its workflow needs (whether stories are committed, the PRDs it depends on,
 * resolved against its folder), read without its stories; a PRD that cannot be read or is not shaped
 * like one has neither (the run reports what is wrong).
 */
function prdHead(file: string): { commit: boolean; dependsOn: string[] } {
  try {
    const outline = readPrdOutline(file, { stories: false });
    if (!outline) return { commit: false, dependsOn: [] };
    return { commit: outline.commit, dependsOn: outline.dependsOn.map((d) => resolve(dirname(file), d)) };
  } catch {
    return { commit: false, dependsOn: [] };
  }
}
