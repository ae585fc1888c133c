import { checkRepoLocation, type ProcessOutcome, runProcess } from "@meshflow/core";
import { WorkspaceToolError } from "../WorkspaceToolError.js";
import type { ToolContext } from "./ToolContext.js";

/** Transports git knows; each is forbidden by name, since a repository's own config may allow one by name. */
const PROTOCOLS = ["file", "git", "ssh", "http", "https", "ftp", "ftps", "ext", "fd"] as const;

/**
 * Options that keep git read-only and free of programs the repository could name: no fsmonitor hook, no
 * hooks, no transport at all (so a partial clone's lazy fetch cannot start a configured upload-pack), no
 * optional index refresh (GIT_OPTIONAL_LOCKS=0), no pager, pathspecs taken literally, and never into a
 * submodule: git would run `status` in it as a child, with the submodule's own config (its filter and
 * textconv drivers, which the overrides of {@link filterOverrides} do not know). `-c` wins over every
 * config file, the repository's included, and is passed down to any git child.
 */
const GIT_GLOBAL = [
  "-c",
  "core.fsmonitor=false",
  "-c",
  "submodule.recurse=false",
  "-c",
  "status.submoduleSummary=false",
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "protocol.allow=never",
  ...PROTOCOLS.flatMap((p) => ["-c", `protocol.${p}.allow=never`]),
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
  return {
    ...env,
    GIT_OPTIONAL_LOCKS: "0",
    GIT_TERMINAL_PROMPT: "0",
    // git >= 2.44 never fetches missing objects of a partial clone with this; older ones are stopped by
    // the protocol options above (the fetch cannot start a transport).
    GIT_NO_LAZY_FETCH: "1",
    GIT_PROTOCOL_FROM_USER: "0",
    LC_ALL: "C",
  };
}

/** Options of one git call. */
export interface GitCallOptions {
  maxBytes?: number;
  signal?: AbortSignal | undefined;
  /** More `-c` options (from {@link RepoInfo.overrides}): the repository's filter drivers switched off. */
  overrides?: readonly string[];
}

/** Runs `git <args>` in the workspace root: no shell, the server's timeout, output capped at `maxBytes`. */
export async function runGit(
  ctx: ToolContext,
  args: readonly string[],
  options: GitCallOptions = {},
): Promise<ProcessOutcome> {
  const run = await runProcess("git", [...GIT_GLOBAL, ...(options.overrides ?? []), ...args], {
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
  options: GitCallOptions = {},
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
  /**
   * Options for each git call: the checked repository and work tree pinned (`--git-dir`, `--work-tree`),
   * and `-c` options switching off every filter driver the repository's config defines.
   */
  overrides: string[];
}

/**
 * Filter drivers (`filter.<name>.clean/smudge/process`) run programs named by the repository's config
 * whenever git compares work-tree files. Each one found is switched off with empty commands (git then
 * passes content through) and `required=false`; a name `-c` cannot express is refused as `repo_unsafe`.
 */
async function filterOverrides(ctx: ToolContext, pinned: string[], signal?: AbortSignal): Promise<string[]> {
  const run = await runGit(ctx, ["config", "-z", "--name-only", "--get-regexp", "^filter\\."], {
    signal,
    overrides: pinned,
  });
  // Exit 1: no filter configured.
  if (run.exitCode !== 0) return [];
  const names = new Set<string>();
  for (const key of run.stdout.text.split("\0")) {
    const match = /^filter\.(.+)\.[^.]+$/s.exec(key);
    if (match?.[1] !== undefined) names.add(match[1]);
  }
  const overrides: string[] = [];
  for (const name of names) {
    if (name.includes("=") || name.includes("\n"))
      throw new WorkspaceToolError(
        "repo_unsafe",
        `the repository configures a filter driver named ${JSON.stringify(name)} that cannot be switched off safely; ` +
          "git tools refuse to run in it",
        { root: ctx.root.real, filter: name },
      );
    for (const key of ["clean", "smudge", "process"]) overrides.push("-c", `filter.${name}.${key}=`);
    overrides.push("-c", `filter.${name}.required=false`);
  }
  return overrides;
}

/** The repository holding the root, or `not_a_git_repo` naming the root. */
export async function repoInfo(ctx: ToolContext, signal?: AbortSignal): Promise<RepoInfo> {
  const run = await runGit(ctx, ["rev-parse", "--show-toplevel", "--absolute-git-dir", "--show-prefix"], { signal });
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
  const [toplevel = "", gitDir = "", prefix = ""] = run.stdout.text.split("\n");
  const problem = checkRepoLocation({ root: ctx.root.real, toplevel, gitDir });
  if (problem)
    throw new WorkspaceToolError("repo_unsafe", `${problem}; git tools refuse to run there`, {
      root: ctx.root.real,
      toplevel,
      gitDir,
    });
  // Pinned: every later call uses exactly the repository and work tree checked here.
  const pinned = [`--git-dir=${gitDir}`, `--work-tree=${toplevel}`];
  return { toplevel, prefix, overrides: [...pinned, ...(await filterOverrides(ctx, pinned, signal))] };
}
