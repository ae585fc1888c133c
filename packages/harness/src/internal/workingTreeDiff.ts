import { spawnSync } from "node:child_process";

/** Bytes of a working tree's diff a step's evidence keeps. */
const MAX_DIFF_BYTES = 64 * 1024;

/**
 * Git run so that nothing in the repository's config starts a program: no external diff or textconv,
 * no hooks, no fsmonitor, submodules left alone.
 */
const SAFE_GIT = [
  "--no-pager",
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "diff.external=",
  "-c",
  "submodule.recurse=false",
];

function git(cwd: string, args: readonly string[]): string | undefined {
  const run = spawnSync("git", [...SAFE_GIT, ...args], {
    cwd,
    encoding: "utf8",
    maxBuffer: 4 * MAX_DIFF_BYTES,
    timeout: 10_000,
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0" },
  });
  return run.status === 0 ? run.stdout : undefined;
}

/**
 * The working tree's changes in a git repository — the untracked files' names and the diff of
 * tracked ones, cut at {@link MAX_DIFF_BYTES} — or undefined outside a repository. What a harness
 * with its own tools on changed beside meshflow's journal.
 */
export function workingTreeDiff(cwd: string): string | undefined {
  const status = git(cwd, ["status", "--porcelain", "--ignore-submodules=all", "--untracked-files=all"]);
  if (status === undefined) return undefined;
  const diff = git(cwd, ["diff", "--no-ext-diff", "--no-textconv", "--no-color", "--ignore-submodules=all"]) ?? "";
  const whole = `${status}${status && diff ? "\n" : ""}${diff}`;
  return whole.length > MAX_DIFF_BYTES
    ? `${whole.slice(0, MAX_DIFF_BYTES)}\n… (cut at ${MAX_DIFF_BYTES} bytes)`
    : whole;
}
