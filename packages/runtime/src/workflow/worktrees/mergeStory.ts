import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type StepStatus, toMeshflowError } from "@meshflow/core";
import type { GateResult } from "../../gate/runVerify.js";
import type { Git } from "../Git.js";

/** What merging one story needs. */
export interface MergeRequest {
  /** The repository's main working tree. */
  main: Git;
  /** The story's worktree, on its branch with the story committed. */
  worktree: Git;
  branch: string;
  /** The branch the run started on. */
  target: string;
  storyId: string;
  runId: string;
  /** The story has `verify` commands: they run again in the worktree on the merged tree. */
  gated: boolean;
  /** The story's `verify` commands, run in the worktree (on the merged tree). */
  gate(): Promise<GateResult>;
  /**
   * Runs git commands that read or change the repository's worktrees (checkouts, merges, the target's
   * fast-forward) alone: git reads every worktree's folder for them, and one being made beside them
   * would fail them.
   */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  /** Whether the main working tree has the target checked out (it is fast-forwarded), else its ref moves. */
  targetCheckedOut(): Promise<boolean>;
  /** Asks a specialist to resolve the conflicted files in the worktree (the conflict markers are there). */
  resolve?(conflicted: readonly string[]): Promise<{ passed: boolean; summary: string }>;
}

/** How a merge went. */
export interface Merged {
  status: StepStatus;
  summary: string;
  /** The head of the story's branch (its commit, when it made one). */
  branchHead?: string;
  gate?: GateResult;
  warnings: string[];
}

/**
 * Merges a story's branch into the run's branch without touching the main working tree until it is
 * sure. The merge is computed without a checkout (`git merge-tree --write-tree`) and recorded as a merge
 * commit naming the story (`--no-ff`: parents the target's head and the branch); when the story has
 * `verify` commands its worktree checks that commit out and the gate runs again there. Only then does
 * the target move to it (a fast-forward of the main working tree). A branch already in the target (a
 * resumed run that merged it before it stopped) is not merged again. A conflict blocks the story with
 * `merge_conflict` naming the files, unless a specialist resolves it (the merge is then made in the
 * worktree, with the conflict markers in the files); a failing gate fails it. Either way the worktree is
 * back on the story's branch, which is kept.
 */
export async function mergeStory(request: MergeRequest): Promise<Merged> {
  const { main, branch, target } = request;
  const [ours, theirs] = [`refs/heads/${target}`, `refs/heads/${branch}`];
  const [head = "", headTree = "", branchHead = ""] = (
    await main.plumbing(["rev-parse", `${ours}^{commit}`, `${ours}^{tree}`, `${theirs}^{commit}`])
  ).split("\n");
  const merged = await mergeFrom(request, head, headTree);
  return branchHead ? { ...merged, branchHead } : merged;
}

async function mergeFrom(request: MergeRequest, head: string, headTree: string): Promise<Merged> {
  const { main, worktree, branch, target } = request;
  const [ours, theirs] = [`refs/heads/${target}`, `refs/heads/${branch}`];
  const { exclusive } = request;
  const back = () => exclusive(() => worktree.plumbing(["checkout", "--quiet", "--force", branch]));
  const message = [`Merge ${branch} into ${target}`, `Meshflow-Run: ${request.runId}`];
  const tried = await main.outcome(["merge-tree", "--write-tree", "-z", "--name-only", "--no-messages", head, theirs]);
  const [tree = "", ...rest] = tried.stdout.split("\0");
  // Merging would change nothing: the branch is in the target already (merged before a resume), or
  // adds nothing to it.
  if (tried.code === 0 && tree === headTree)
    return { status: "passed", summary: `${branch} is in ${target}; nothing to merge`, warnings: [] };
  let commit: string;
  let resolution = "";
  let checkedOut = false;
  if (tried.code === 0)
    commit = (
      await main.plumbing(["commit-tree", tree, "-p", head, "-p", theirs, ...message.flatMap((m) => ["-m", m])])
    ).trim();
  else {
    const conflicted = [...new Set(rest.filter(Boolean))];
    if (tried.code !== 1 || !conflicted.length)
      return {
        status: "blocked",
        summary: `merge_failed: git merge-tree of ${branch} into ${target} exited ${tried.code}; the branch ${branch} is kept`,
        warnings: [],
      };
    const names = conflicted.join(", ");
    const conflict = (why?: string): Merged => ({
      status: "blocked",
      summary: `merge_conflict: merging ${branch} into ${target} conflicts in ${names}; the branch ${branch} is kept${why ? ` (${why})` : ""}`,
      warnings: [],
    });
    if (!request.resolve) return conflict();
    // The specialist resolves in the worktree, where the merge leaves git's conflict markers.
    await exclusive(async () => {
      await worktree.plumbing(["checkout", "--quiet", "--detach", head]);
      await worktree.attempt(["merge", "--no-ff", "--no-edit", ...message.flatMap((m) => ["-m", m]), theirs]);
    });
    checkedOut = true;
    const resolved = await resolveConflict(request, conflicted);
    if (!resolved.passed) {
      await exclusive(() => worktree.attempt(["merge", "--abort"]));
      await back();
      return conflict(resolved.summary);
    }
    resolution = `; conflicts in ${names} resolved`;
    commit = (await worktree.plumbing(["rev-parse", "HEAD"])).trim();
  }
  let gate: GateResult | undefined;
  if (request.gated) {
    if (!checkedOut) await exclusive(() => worktree.plumbing(["checkout", "--quiet", "--detach", commit]));
    checkedOut = true;
    gate = await request.gate();
    if (!gate.passed) {
      await back();
      return {
        status: "failed",
        summary: `the gate failed on ${target} with the story merged (nothing merged; the branch ${branch} is kept): ${gate.summary}`,
        gate,
        warnings: [],
      };
    }
  }
  try {
    await exclusive(async () => {
      if ((await request.targetCheckedOut()) === true) await main.plumbing(["merge", "--ff-only", "--quiet", commit]);
      else await main.plumbing(["update-ref", ours, commit, head]);
    });
  } catch (error) {
    if (checkedOut) await back();
    return {
      status: "blocked",
      summary: `merge_failed: ${target} could not move to the merge of ${branch}: ${toMeshflowError(error).message}`,
      ...(gate ? { gate } : {}),
      warnings: [],
    };
  }
  const checked = gate?.results.length ? `; on the merged tree ${gate.summary}` : "";
  return {
    status: "passed",
    summary: `merged into ${target}${resolution}${checked}`,
    ...(gate ? { gate } : {}),
    warnings: [],
  };
}

/** The specialist's resolution, committed when every conflict marker is gone. */
async function resolveConflict(
  request: MergeRequest,
  conflicted: readonly string[],
): Promise<{ passed: boolean; summary: string }> {
  const { worktree } = request;
  let answer: { passed: boolean; summary: string };
  try {
    answer = (await request.resolve?.(conflicted)) ?? { passed: false, summary: "nobody resolves conflicts" };
  } catch (error) {
    return { passed: false, summary: `the resolution failed: ${toMeshflowError(error).message}` };
  }
  if (!answer.passed) return answer;
  const marked = conflicted.filter((file) => hasMarkers(join(worktree.root, file)));
  if (marked.length) return { passed: false, summary: `conflict markers remain in ${marked.join(", ")}` };
  await worktree.plumbing(["add", "-A", "--", ...conflicted]);
  const done = await worktree.attempt(["commit", "--quiet", "--no-edit"]);
  return done === undefined ? { passed: false, summary: "the resolved merge could not be committed" } : answer;
}

function hasMarkers(file: string): boolean {
  try {
    return /^(<{7}|>{7})( |$)/m.test(readFileSync(file, "utf8"));
  } catch {
    return false; // deleted: resolved by removing it
  }
}
