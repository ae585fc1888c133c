import { existsSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { isPrdFileName, MeshflowError, toMeshflowError } from "@meshflow/core";
import { storyCommitMessage } from "./commitTypes.js";
import { Git, type TreeState } from "./Git.js";
import { manyUntracked } from "./manyUntracked.js";
import { oneLine } from "./oneLine.js";
import { ProgressLog, progressFileOf } from "./ProgressLog.js";
import type { StoryRecall } from "./RunMemory.js";
import type { CarriedStep, ConcludedStory, StoryHooks } from "./StoryHooks.js";
import { StoryMemory } from "./StoryMemory.js";

/** How the PRD workflow runs around one PRD's stories. */
export interface PrdWorkflowOptions {
  prdFile: string;
  /** The run store's folder: the story memory lives in its `memory/`. */
  storeRoot: string;
  /** PRD files whose learnings this PRD's steps see too (its `dependsOn`). */
  related?: readonly string[];
  /** Commit each story that passed its gate (`--commit`, `"git": {"commit": true}`). */
  commit?: boolean;
  /** The repository of the PRD (found with {@link Git.find}); without it nothing is committed and no files are listed. */
  git?: Git;
  /** Steps kept from an earlier run, by story id then step index (`--rerun-failed`). */
  carried?: ReadonlyMap<string, ReadonlyMap<number, CarriedStep>>;
  /**
   * Log lines an interrupted run already wrote (its `log.ndjson`), when it is resumed: the learnings of
   * the story it was in are kept.
   */
  earlierLog?: ReadonlyArray<Record<string, unknown>>;
  /**
   * The run being resumed, when it is: a story it was in keeps the start it recorded (its first step
   * runs again on resume, after the story already changed files).
   */
  resuming?: string;
  /**
   * Stories work in worktrees of their own (`--isolate worktree`): the files and commit of a story come
   * from its worktree (see `ConcludedStory.isolated`), the main tree's state is not read around it.
   */
  isolated?: boolean;
  /** Told of each commit made. */
  onCommit?: (commit: StoryCommit) => void;
}

/** A story's commit. */
export interface StoryCommit {
  storyId: string;
  commit: string;
  message: string;
  files: string[];
}

/**
 * The runtime's own files around PRDs, never committed by a story nor counted as a dirty tree: in the
 * folder of each PRD, every PRD file (the completion gate writes them), progress log, PRD lock and the
 * `archive/` folder; and the run store.
 */
export function bookkeeping(git: Git, prdFiles: readonly string[], storeRoot: string): (path: string) => boolean {
  const folders = new Set<string>();
  const prefixes: string[] = [];
  // The given PRDs by name too, whatever their names (a plain `prd.json`).
  const exact = new Set(
    prdFiles.flatMap((prd) =>
      [prd, progressFileOf(prd), join(dirname(prd), `.${basename(prd)}.lock`)].flatMap((f) => git.relative(f) ?? []),
    ),
  );
  for (const prd of prdFiles) {
    const folder = git.relative(dirname(resolve(prd)));
    const inRoot = dirname(resolve(prd)) === git.root;
    if (folder === undefined && !inRoot) continue;
    const rel = folder ?? "";
    folders.add(rel);
    prefixes.push(`${rel ? `${rel}/` : ""}archive/`);
  }
  const store = git.relative(storeRoot);
  if (store) prefixes.push(`${store}/`);
  return (path) => {
    const slash = path.lastIndexOf("/");
    const folder = slash < 0 ? "" : path.slice(0, slash);
    const name = path.slice(slash + 1);
    const own =
      folders.has(folder) &&
      (isPrdFileName(name) ||
        name.endsWith(".progress.md") ||
        (name.startsWith(".") && name.endsWith(".json.lock") && isPrdFileName(name.slice(1, -5))) ||
        // The write-back's temp file (`.<prd>.<pid>.<n>.tmp`), there for a moment while a mark is written.
        (name.startsWith(".") && /\.json\.\d+\.\d+\.tmp$/.test(name)));
    return own || exact.has(path) || prefixes.some((p) => path.startsWith(p));
  };
}

/**
 * Refuses a repository with uncommitted changes (besides the runtime's {@link bookkeeping}) before a
 * run that commits: `tree_dirty`, naming up to ten paths.
 */
export async function assertCleanTree(git: Git, ignored: (path: string) => boolean): Promise<void> {
  const dirty = [...(await git.state(ignored, false)).keys()];
  if (dirty.length)
    throw new MeshflowError(
      "tree_dirty",
      `${git.root} has uncommitted changes (${dirty.slice(0, 10).map(oneLine).join(", ")}${dirty.length > 10 ? `, … ${dirty.length - 10} more` : ""}); commit or stash them, or pass --allow-dirty`,
      { details: { root: git.root, paths: dirty } },
    );
}

/**
 * The PRD workflow as {@link StoryHooks}: each concluded story is appended to the PRD's progress log
 * and to the story memory (with the files its steps changed, from `git status` before and after the
 * story, and its specialists' learnings); a step is told the PRD's finished stories and the learnings
 * of related PRDs; with `commit`, a story that passed its gate is committed alone.
 */
export function prdWorkflow(options: PrdWorkflowOptions): StoryHooks {
  const prdFile = resolve(options.prdFile);
  const memory = new StoryMemory(options.storeRoot);
  const progress = new ProgressLog(prdFile);
  const related = (options.related ?? []).map((f) => resolve(f));
  const { git } = options;
  const ignored = git ? bookkeeping(git, [prdFile, ...related], options.storeRoot) : () => true;
  const before = new Map<string, TreeState>();
  const learnings = new Map<string, string[]>();
  const problems = new Map<string, string[]>();
  let last: TreeState | undefined;
  /** Said once, with the first story that reads the tree: many untracked files make every story slow. */
  let untracked: { said: boolean; warning?: string | undefined } = { said: false };
  const read = async (repository: Git): Promise<TreeState> => {
    const state = await repository.state(ignored);
    if (!untracked.said) untracked = { said: true, warning: manyUntracked(state) };
    return state;
  };

  const hooks: StoryHooks = {
    async beforeStory(planned, _plan, runId) {
      learnings.delete(planned.id);
      if (!git || options.isolated) return;
      try {
        // The tree the last story left is this one's start (only the runtime's own files changed since).
        const kept = options.resuming ? memory.loadStart(prdFile, planned.id, options.resuming) : undefined;
        const start = kept ?? last ?? (await read(git));
        before.set(planned.id, start);
        last = undefined;
        if (!kept) memory.saveStart(prdFile, planned.id, runId, start);
      } catch (error) {
        problems.set(planned.id, [`git status before the story: ${toMeshflowError(error).message}`]);
      }
    },
    recall: (planned) => memory.recall(prdFile, planned.id, related),
    carried(planned, stepIndex) {
      const kept = options.carried?.get(planned.id)?.get(stepIndex);
      // A PRD edited since the earlier run may have other steps there: those run again.
      return kept && kept.step === planned.steps[stepIndex] ? kept : undefined;
    },
    onLog(entry) {
      if (entry.level !== "learning" || typeof entry.storyId !== "string" || typeof entry.message !== "string") return;
      const list = learnings.get(entry.storyId) ?? [];
      list.push(entry.message);
      learnings.set(entry.storyId, list);
    },
    async afterStory(done: ConcludedStory) {
      const { story } = done.planned;
      const warnings = (problems.get(story.id) ?? []).map((w) => `${story.id}: ${w}`);
      problems.delete(story.id);
      // A run resumed in another process finds the story's start where beforeStory kept it.
      const start =
        before.get(story.id) ??
        (git && options.resuming ? memory.loadStart(prdFile, story.id, options.resuming) : undefined);
      before.delete(story.id);
      let files: string[] = done.isolated?.files ?? [];
      if (git && start && !done.isolated) {
        const after = await read(git);
        // An untracked file that is gone again was someone's temp file, not the story's work.
        files = Git.changed(start, after).filter(
          (path) => !after.get(path)?.startsWith("??") || existsSync(join(git.root, path)),
        );
        last = after;
      }
      // A re-run keeps steps of an earlier run: what they changed is part of the story too.
      if (options.carried?.get(story.id)?.size)
        files = [...new Set([...files, ...(memory.latest(prdFile).get(story.id)?.files ?? [])])].sort();
      const entry: StoryRecall = {
        prd: basename(prdFile),
        storyId: story.id,
        title: story.title,
        status: done.status,
        summary: done.summary,
        files,
        learnings: learnings.get(story.id) ?? [],
        runId: done.runId,
        time: new Date().toISOString(),
      };
      learnings.delete(story.id);
      const passed = done.status === "passed" && done.gate?.passed === true;
      const isolated = done.isolated;
      if (isolated?.commit) {
        entry.commit = isolated.commit;
        if (passed)
          options.onCommit?.({ storyId: story.id, commit: isolated.commit, message: isolated.message ?? "", files });
      } else if (options.commit && passed && !isolated) {
        if (!git) warnings.push(`${story.id}: not committed: ${prdFile} is not in a git repository`);
        else if (!start)
          warnings.push(
            `${story.id}: not committed: the tree before the story is unknown (the run was resumed mid-story)`,
          );
        else if (!files.length) warnings.push(`${story.id}: nothing to commit: its steps changed no file`);
        else {
          const lines = storyCommitMessage(
            done.steps.map((s) => s.specialist),
            story,
            done.runId,
          );
          const [message] = lines;
          try {
            entry.commit = await git.commit(files, lines);
            // The committed files are clean now; the rest of the tree is as the story left it.
            const committed = new Set(files);
            last = last ? new Map([...last].filter(([path]) => !committed.has(path))) : undefined;
            options.onCommit?.({ storyId: story.id, commit: entry.commit, message, files });
          } catch (error) {
            // A hook refusing the commit: the story's outcome stands, its progress is still recorded.
            warnings.push(`${story.id}: not committed: ${toMeshflowError(error).message}`);
            last = undefined;
          }
        }
      }
      memory.append(prdFile, entry);
      progress.append(entry);
      // The run's first look at the tree found it crowded: said once, with the story that paid for it.
      if (untracked.warning) warnings.push(untracked.warning);
      untracked.warning = undefined;
      return warnings;
    },
    flush() {
      memory.flush();
      progress.flush();
    },
  };
  for (const entry of options.earlierLog ?? []) hooks.onLog?.(entry);
  return hooks;
}
