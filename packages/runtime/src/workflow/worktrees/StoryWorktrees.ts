import { existsSync, mkdirSync, readdirSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { MeshflowError, toMeshflowError } from "@meshflow/core";
import type { Executor } from "@meshflow/mcp";
import type { PlannedStory, RunPlan } from "../../RunPlan.js";
import { storyCommitMessage } from "../commitTypes.js";
import { Git } from "../Git.js";
import { MergeQueue } from "../mergeQueue.js";
import { bookkeeping } from "../prdWorkflow.js";
import { mergeStory } from "./mergeStory.js";
import type { Landing, LandingRequest, StoryWorkspace, StoryWorkspaces } from "./StoryWorkspaces.js";
import type { WorktreePlanes } from "./WorktreePlanes.js";

/** What {@link StoryWorktrees} works with. */
export interface StoryWorktreesOptions {
  /** The PRD's repository (its main working tree). */
  git: Git;
  /** The run store's folder: never part of a story's changes. */
  storeRoot: string;
  /** The servers started per worktree; absent, every story's calls go to the run's servers. */
  planes?: WorktreePlanes;
}

/** One story's worktree. */
interface Worktree extends StoryWorkspace {
  storyId: string;
  branch: string;
  git: Git;
  /** Found from an earlier process (which may have stopped mid-merge), not made by this one. */
  found: boolean;
}

/** The folder of a run's worktrees under a repository: `.flow/worktrees/<runId>`. */
export function worktreesOf(root: string, runId: string): string {
  return join(root, ".flow", "worktrees", runId);
}

/** A story id as a path and branch name part: what git allows in a ref, nothing else. */
function worktreeName(storyId: string): string {
  const name = storyId
    .replace(/[^A-Za-z0-9._-]/g, "_")
    .replace(/^\.+/, "_")
    .replace(/\.lock$/, "_lock");
  return name || "_";
}

/**
 * A git worktree per story, at `.flow/worktrees/<runId>/<storyId>` on the branch
 * `flow/<runId>/<storyId>`, made from the head of the branch the run started on when the story starts
 * (so it sees the stories merged before it), or found again when a resumed run reaches it. A story
 * that passed there is committed on its branch and merged back through the {@link MergeQueue}; once
 * merged its worktree and branch are removed. Stories that did not pass keep theirs.
 */
export class StoryWorktrees implements StoryWorkspaces {
  readonly #options: StoryWorktreesOptions;
  readonly #open = new Map<string, Worktree>();
  readonly #queue = new MergeQueue();
  #target: Promise<string> | undefined;
  /** The last git command that reads or changes the repository's worktrees (they run one at a time). */
  #git: Promise<unknown> = Promise.resolve();

  constructor(options: StoryWorktreesOptions) {
    this.#options = options;
  }

  /**
   * Runs `work` when no other git command that reads or changes the repository's worktrees runs:
   * `worktree add` writes a worktree's folder bit by bit, and git commands that list worktrees (a
   * checkout, a merge, `branch`) fail on one half-written.
   */
  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#git.then(work, work);
    this.#git = run.catch(() => undefined);
    return run;
  }

  /** The branch the run lands stories on: the main working tree's, when the first story opens. */
  #branch(): Promise<string> {
    this.#target ??= this.#exclusive(() => this.#options.git.branch()).then((branch) => {
      if (!branch)
        throw new MeshflowError(
          "usage",
          `${this.#options.git.root} is on a detached HEAD: stories in worktrees merge into a branch; check one out, or pass --isolate none`,
        );
      return branch;
    });
    return this.#target;
  }

  open(runId: string, planned: PlannedStory, plan: RunPlan): Promise<StoryWorkspace> {
    return this.#worktree(runId, planned, plan);
  }

  async #worktree(runId: string, planned: PlannedStory, plan: RunPlan): Promise<Worktree> {
    const known = this.#open.get(planned.id);
    if (known) return known;
    const { git } = this.#options;
    const target = await this.#branch();
    const folder = worktreesOf(git.root, runId);
    const dir = join(folder, worktreeName(planned.id));
    const branch = `flow/${runId}/${worktreeName(planned.id)}`;
    const found = existsSync(join(dir, ".git"));
    let executor: Executor | undefined;
    if (!found) {
      mkdirSync(folder, { recursive: true });
      // The main tree's `git status` never lists the worktrees (nor a dirty-tree check counts them).
      const ignore = join(folder, "..", ".gitignore");
      if (!existsSync(ignore)) writeFileSync(ignore, "*\n");
      // The story's workspace servers start in the (empty) folder while git fills it.
      mkdirSync(dir, { recursive: true });
      executor = this.#options.planes?.executorFor(dir, serversOf(planned));
      await this.#exclusive(async () => {
        const made = await git.attempt(["worktree", "add", "--quiet", "-b", branch, dir, `refs/heads/${target}`]);
        if (made === undefined) {
          // The branch is there from an earlier process (its worktree folder was removed): check it out again.
          await git.plumbing(["worktree", "prune"]);
          await git.plumbing(["worktree", "add", "--quiet", dir, branch]);
        }
      });
    }
    const there = Git.linked(dir);
    const prdDir = join(dir, relative(git.root, resolve(plan.prdDir)));
    executor ??= this.#options.planes?.executorFor(dir);
    const worktree: Worktree = {
      storyId: planned.id,
      dir,
      prdDir,
      branch,
      git: there,
      found,
      ...(executor ? { executor } : {}),
    };
    this.#open.set(planned.id, worktree);
    this.#queue.enter(planned.index);
    return worktree;
  }

  /** A story's workspace; its conflict resolution step (`<id>.merge`) works in the story's. */
  of(storyId: string): StoryWorkspace | undefined {
    return this.#open.get(storyId) ?? this.#open.get(storyId.replace(/\.merge$/, ""));
  }

  async land(request: LandingRequest): Promise<Landing> {
    const { planned, runId, plan } = request;
    const worktree = this.#open.get(planned.id) ?? (await this.#worktree(runId, planned, plan));
    // Committed on its branch beside the other stories; only the merges take turns.
    const committed = await this.#commit(worktree, request).catch(
      (error: unknown): Landing => ({
        status: "blocked",
        summary: `not committed in its worktree ${worktree.dir}: ${toMeshflowError(error).message}`,
        files: [],
        warnings: [],
      }),
    );
    if ("status" in committed) {
      this.#queue.leave(planned.index);
      await this.#options.planes?.release(worktree.dir);
      return committed;
    }
    const landed = await this.#queue.turn(planned.index, async (): Promise<Landing> => {
      const target = await this.#branch();
      const merged = await mergeStory({
        main: this.#options.git,
        worktree: worktree.git,
        branch: worktree.branch,
        target,
        storyId: planned.id,
        runId,
        gated: (planned.story.verify?.length ?? 0) > 0,
        gate: () => request.gate(worktree.prdDir),
        // Read from HEAD itself (no git process); git is asked only when HEAD cannot be read.
        targetCheckedOut: async () => (this.#options.git.headBranch() ?? (await this.#options.git.branch())) === target,
        exclusive: (work) => this.#exclusive(work),
        ...(request.resolve
          ? { resolve: (conflicted) => request.resolve?.(conflicted, worktree) ?? noResolver() }
          : {}),
      });
      const { branchHead, ...outcome } = merged;
      return {
        ...outcome,
        ...committed,
        ...(committed.message && branchHead ? { commit: branchHead } : {}),
        warnings: [...committed.warnings, ...merged.warnings],
      };
    });
    // Outside the queue's turn: the next story merges meanwhile. The worktree's servers stop once its
    // resolution step (if any) is done.
    await Promise.all([
      this.#options.planes?.release(worktree.dir),
      landed.status === "passed" ? this.#remove(worktree) : undefined,
    ]);
    return landed;
  }

  /** Commits what the story changed in its worktree, as `--commit` does (the repository's hooks run). */
  async #commit(
    worktree: Worktree,
    request: LandingRequest,
  ): Promise<{ files: string[]; message?: string; warnings: string[] } | Landing> {
    const { planned, runId, plan } = request;
    // A run stopped mid-merge left the worktree on the merge: back to the story's branch.
    if (worktree.found)
      await this.#exclusive(async () => {
        if ((await worktree.git.branch()) === worktree.branch) return;
        await worktree.git.attempt(["merge", "--abort"]);
        await worktree.git.plumbing(["checkout", "--quiet", "--force", worktree.branch]);
      });
    const files = await this.#changed(worktree, plan);
    if (!files.length) return { files, warnings: [] };
    const lines = storyCommitMessage(request.specialists, { id: planned.id, title: planned.story.title }, runId);
    const [message] = lines;
    // Its id comes with the merge's look at the branches (one git process less).
    await worktree.git.record(files, lines);
    return { files, message, warnings: [] };
  }

  async keep(planned: PlannedStory): Promise<void> {
    const worktree = this.#open.get(planned.id);
    this.#queue.leave(planned.index);
    if (worktree) await this.#options.planes?.release(worktree.dir);
  }

  async close(runId: string, finished: boolean): Promise<Map<string, string>> {
    await this.#options.planes?.close();
    const folder = worktreesOf(this.#options.git.root, runId);
    const kept = new Map([...this.#open].map(([id, w]) => [id, w.dir]));
    if (finished && existsSync(folder) && !readdirSync(folder).length) rmdirSync(folder);
    return kept;
  }

  /** The files the story changed in its worktree (the runtime's own files left out). */
  async #changed(worktree: Worktree, plan: RunPlan): Promise<string[]> {
    const { git, storeRoot } = this.#options;
    const inWorktree = (file: string) => join(worktree.dir, relative(git.root, resolve(file)));
    const ours = bookkeeping(worktree.git, [inWorktree(plan.prdFile)], storeRoot);
    return [...(await worktree.git.state(ours)).keys()].sort();
  }

  /**
   * A merged story's worktree and branch go. Git's record of the worktree (its folder under the
   * repository's `worktrees/`) is removed alone, as `git worktree remove` does it, without a git process;
   * then the worktree's folder, and the branch (`update-ref -d`, which lists no worktree, so it needs no
   * turn). A record that is not where it should be is left to `git worktree remove`.
   */
  async #remove(worktree: Worktree): Promise<void> {
    const { git } = this.#options;
    const record = worktree.git.gitDir;
    const ours = relative(join(git.gitDir, "worktrees"), record);
    const plain = ours && !ours.startsWith("..") && !ours.includes(sep) && !isAbsolute(ours);
    await this.#exclusive(async () => {
      if (plain) rmSync(record, { recursive: true, force: true });
      else await git.plumbing(["worktree", "remove", "--force", worktree.dir]);
    });
    rmSync(worktree.dir, { recursive: true, force: true });
    await git.plumbing(["update-ref", "-d", `refs/heads/${worktree.branch}`]);
    this.#open.delete(worktree.storyId);
  }
}

/** The servers a story's steps name (`mcpTools`). */
function serversOf(planned: PlannedStory): string[] {
  return [...new Set(Object.values(planned.story.mcpTools ?? {}).flat())];
}

function noResolver(): Promise<{ passed: boolean; summary: string }> {
  return Promise.resolve({ passed: false, summary: "no specialist resolves conflicts" });
}
