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
  /** The story's `verify` commands, run in the worktree (on the merged tree). */
  gate(): Promise<GateResult>;
  /** Asks a specialist to resolve the conflicted files in the worktree (the conflict markers are there). */
  resolve?(conflicted: readonly string[]): Promise<{ passed: boolean; summary: string }>;
}

/** How a merge went. */
export interface Merged {
  status: StepStatus;
  summary: string;
  gate?: GateResult;
  warnings: string[];
}

/**
 * Merges a story's branch into the run's branch without touching the main working tree until it is
 * sure: in the story's worktree, the target's head is checked out (detached) and the branch merged into
 * it (`--no-ff`, a merge commit naming the story); the story's gate runs again on that tree; only when
 * it passes does the target move to the merge commit (a fast-forward of the main working tree). A
 * branch already in the target (a resumed run that merged it before it stopped) is not merged again.
 * A conflict blocks the story with `merge_conflict` naming the files, unless a specialist resolves it;
 * a failing gate fails it. Either way the worktree is back on the story's branch, which is kept.
 */
export async function mergeStory(request: MergeRequest): Promise<Merged> {
  const { main, worktree, branch, target } = request;
  const head = (await main.plumbing(["rev-parse", "--verify", `refs/heads/${target}^{commit}`])).trim();
  const ahead = Number((await main.plumbing(["rev-list", "--count", `${head}..refs/heads/${branch}`])).trim());
  if (ahead === 0) return { status: "passed", summary: `${branch} is in ${target}; nothing to merge`, warnings: [] };
  const back = () => worktree.plumbing(["checkout", "--quiet", "--force", branch]);
  await worktree.plumbing(["checkout", "--quiet", "--detach", head]);
  const message = [`Merge ${branch} into ${target}`, `Meshflow-Run: ${request.runId}`];
  const merged = await worktree.attempt([
    "merge",
    "--no-ff",
    "--no-edit",
    ...message.flatMap((m) => ["-m", m]),
    `refs/heads/${branch}`,
  ]);
  let resolution = "";
  if (merged === undefined) {
    const conflicted = (await worktree.attempt(["diff", "--name-only", "-z", "--diff-filter=U"]))
      ?.split("\0")
      .filter(Boolean);
    const names = conflicted?.length ? conflicted.join(", ") : "(git named no file)";
    const resolved = conflicted?.length && request.resolve ? await resolveConflict(request, conflicted) : undefined;
    if (!resolved?.passed) {
      await worktree.attempt(["merge", "--abort"]);
      await back();
      return {
        status: "blocked",
        summary: `merge_conflict: merging ${branch} into ${target} conflicts in ${names}; the branch ${branch} is kept${resolved ? ` (${resolved.summary})` : ""}`,
        warnings: [],
      };
    }
    resolution = `; conflicts in ${names} resolved`;
  }
  const gate = await request.gate();
  if (!gate.passed) {
    await back();
    return {
      status: "failed",
      summary: `the gate failed on ${target} with the story merged (nothing merged; the branch ${branch} is kept): ${gate.summary}`,
      gate,
      warnings: [],
    };
  }
  const commit = (await worktree.plumbing(["rev-parse", "HEAD"])).trim();
  try {
    if ((await main.branch()) === target) await main.plumbing(["merge", "--ff-only", "--quiet", commit]);
    else await main.plumbing(["update-ref", `refs/heads/${target}`, commit, head]);
  } catch (error) {
    await back();
    return {
      status: "blocked",
      summary: `merge_failed: ${target} could not move to the merge of ${branch}: ${toMeshflowError(error).message}`,
      gate,
      warnings: [],
    };
  }
  const checked = gate.results.length ? `; on the merged tree ${gate.summary}` : "";
  return { status: "passed", summary: `merged into ${target}${resolution}${checked}`, gate, warnings: [] };
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
