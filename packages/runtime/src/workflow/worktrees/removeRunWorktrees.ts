import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Git } from "../Git.js";
import { worktreesOf } from "./StoryWorktrees.js";

/**
 * Removes what a run isolated its stories in (`flow reset`): its worktrees under
 * `.flow/worktrees/<runId>` and its branches `flow/<runId>/*`, merged or not. Returns the worktree
 * folders removed.
 */
export async function removeRunWorktrees(git: Git, runId: string): Promise<string[]> {
  const folder = worktreesOf(git.root, runId);
  const removed: string[] = [];
  if (existsSync(folder))
    for (const name of readdirSync(folder)) {
      const dir = join(folder, name);
      await git.attempt(["worktree", "remove", "--force", dir]);
      removed.push(dir);
    }
  rmSync(folder, { recursive: true, force: true });
  await git.attempt(["worktree", "prune"]);
  const branches = (await git.attempt(["for-each-ref", "--format=%(refname)", `refs/heads/flow/${runId}/`])) ?? "";
  for (const ref of branches.split("\n").filter(Boolean))
    await git.attempt(["branch", "-D", "--quiet", ref.slice("refs/heads/".length)]);
  return removed;
}
