import { type ProcessOutcome, runProcess } from "@meshflow/core";
import { WorkspaceToolError } from "../WorkspaceToolError.js";
import type { ToolContext } from "./ToolContext.js";

/**
 * Options that keep git read-only and free of programs the repository could name: no fsmonitor hook,
 * no optional index refresh (GIT_OPTIONAL_LOCKS=0), no pager, pathspecs taken literally.
 */
const GIT_GLOBAL = [
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.quotePath=false",
  "-c",
  "color.ui=never",
  "--no-pager",
  "--literal-pathspecs",
];

function gitEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  // GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE… from the server's environment would point git elsewhere.
  for (const [key, value] of Object.entries(base)) if (!key.startsWith("GIT_")) env[key] = value;
  return { ...env, GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" };
}

/** Runs `git <args>` in the workspace root: no shell, the server's timeout, output capped at `maxBytes`. */
export async function runGit(
  ctx: ToolContext,
  args: readonly string[],
  options: { maxBytes?: number; signal?: AbortSignal } = {},
): Promise<ProcessOutcome> {
  const run = await runProcess("git", [...GIT_GLOBAL, ...args], {
    cwd: ctx.root.real,
    timeoutMs: ctx.timeoutMs,
    maxOutputBytes: options.maxBytes ?? ctx.maxOutputBytes,
    keepStdout: "head",
    killGraceMs: ctx.killGraceMs,
    env: gitEnv(ctx.env),
    signal: options.signal,
  });
  if (run.spawnError)
    throw new WorkspaceToolError(
      "git_failed",
      run.spawnError.code === "ENOENT"
        ? "git is not installed (not found on PATH)"
        : `git could not be started (${run.spawnError.code})`,
    );
  if (run.timedOut)
    throw new WorkspaceToolError("git_failed", `git ${args[0]} did not finish within ${ctx.timeoutMs} ms`);
  return run;
}

/** Runs git and returns stdout; a non-zero exit is a `git_failed` error carrying git's own message. */
export async function gitOutput(
  ctx: ToolContext,
  args: readonly string[],
  options: { maxBytes?: number; signal?: AbortSignal } = {},
): Promise<{ text: string; bytes: number; truncated: boolean }> {
  const run = await runGit(ctx, args, options);
  if (run.exitCode !== 0)
    throw new WorkspaceToolError(
      "git_failed",
      `git ${args[0]} failed: ${run.stderr.text.trim() || `exit ${run.exitCode}`}`,
      {
        exitCode: run.exitCode,
      },
    );
  return run.stdout;
}

/** Where the root sits in its repository: `prefix` is the root's path inside it (`""` or `sub/dir/`). */
export interface RepoInfo {
  toplevel: string;
  prefix: string;
}

/** The repository holding the root, or `not_a_git_repo` naming the root. */
export async function repoInfo(ctx: ToolContext, signal?: AbortSignal): Promise<RepoInfo> {
  const run = await runGit(ctx, ["rev-parse", "--show-toplevel", "--show-prefix"], signal ? { signal } : {});
  if (run.exitCode !== 0) {
    const why = run.stderr.text.trim();
    if (/not a git repository/i.test(why))
      throw new WorkspaceToolError(
        "not_a_git_repo",
        `the workspace root ${ctx.root.real} is not inside a git repository`,
        {
          root: ctx.root.real,
        },
      );
    throw new WorkspaceToolError(
      "git_failed",
      `git rev-parse failed in ${ctx.root.real}: ${why || `exit ${run.exitCode}`}`,
      {
        root: ctx.root.real,
      },
    );
  }
  const [toplevel = "", prefix = ""] = run.stdout.text.split("\n");
  return { toplevel, prefix };
}
