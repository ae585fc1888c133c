import { join } from "node:path";
import { MeshflowError } from "@meshflow/core";
import type { Git, RunParts, StoryWorkspaces } from "@meshflow/runtime/host";
import type { CommandEnvironment } from "./runEnvironment.js";

/** How a run's stories side by side are isolated: `--isolate`, or what a resumed run recorded. */
export type Isolation = "worktree" | "none";

/**
 * The isolation of a run of `parallel` stories at once: `--isolate` when given (`worktree` needs a git
 * repository), else `worktree` in a repository and `none` outside one. One story at a time needs none.
 */
export function isolationOf(
  file: string,
  parallel: number,
  given: Isolation | undefined,
  git: Git | undefined,
): Isolation {
  if (parallel <= 1) {
    if (given === "worktree")
      throw new MeshflowError(
        "usage",
        "--isolate worktree isolates stories side by side: give --parallel n (n > 1) with it",
      );
    return "none";
  }
  if (given === "worktree" && !git)
    throw new MeshflowError("usage", `${file} is not in a git repository: --isolate worktree needs one`);
  return given ?? (git ? "worktree" : "none");
}

/**
 * The story worktrees of a run isolated with `worktree` (undefined for `none`): each story in a git
 * worktree of its own, its `${FLOW_WORKSPACE}` servers started there, merged back when it passed.
 */
export async function storyWorkspaces(
  isolation: Isolation,
  git: Git | undefined,
  command: CommandEnvironment,
  parts: RunParts,
): Promise<StoryWorkspaces | undefined> {
  if (isolation !== "worktree" || !git) return undefined;
  const { StoryWorktrees, WorktreePlanes } = await import("@meshflow/runtime/host");
  const { env } = command;
  // The worktrees' servers are siblings of the run's plane: their calls pass the run's one guard.
  const planes = new WorktreePlanes({
    mcpConfig: env.mcpConfig,
    plane: parts.plane,
    logDir: join(env.store.root, "logs"),
  });
  return new StoryWorktrees({ git, storeRoot: env.store.root, planes });
}
