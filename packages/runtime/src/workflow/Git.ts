import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { checkRepoLocation, MeshflowError, runProcess } from "@meshflow/core";

/** Bytes kept of git's output (a `status` of a big tree fits). */
const MAX_OUTPUT = 16 * 1024 * 1024;
const TIMEOUT_MS = 60_000;

/**
 * Options of every git call of a run: pathspecs are literal (a story's file named `:(top)` is that file,
 * not the whole tree), and git never enters a submodule (it would run `status` there with the
 * submodule's own config: its filter and textconv programs), nor runs an external diff. The repository's
 * own hooks and filters still run, as for the user's own commits.
 */
const GIT_GLOBAL = [
  "--literal-pathspecs",
  "--no-pager",
  "-c",
  "submodule.recurse=false",
  "-c",
  "diff.external=",
  "-c",
  "status.submoduleSummary=false",
];

/**
 * Switches the repository's hooks off for one git command, and its automatic maintenance (a
 * `git maintenance run --auto` process after each commit or merge; the user's own commands still run it).
 */
const HOOKS_OFF = ["-c", "core.hooksPath=/dev/null", "-c", "maintenance.auto=false"];

/** What `git status` says of one path, with a digest of its content so a further edit shows. */
export type TreeState = ReadonlyMap<string, string>;

/**
 * A git repository, driven through `git` with argv (never a shell) by the core's `runProcess`. Paths
 * are relative to the repository's top folder, with `/`. Every call is pinned to the repository and
 * work tree {@link Git.find} checked (`--git-dir`, `--work-tree`).
 */
export class Git {
  readonly root: string;
  /** The folder of the repository's (or linked worktree's) own files: `HEAD`, the index. */
  readonly gitDir: string;
  readonly #pinned: readonly string[];

  private constructor(root: string, gitDir: string) {
    this.root = root;
    this.gitDir = gitDir;
    this.#pinned = [`--git-dir=${gitDir}`, `--work-tree=${root}`];
  }

  /**
   * The repository `dir` is in, or undefined when it is in none (or git is not installed). A repository
   * that points git outside it (`core.worktree`, a `.git` file naming another repository) is refused
   * with `repo_unsafe`.
   */
  static async find(dir: string): Promise<Git | undefined> {
    const out = await run(resolve(dir), ["rev-parse", "--show-toplevel", "--absolute-git-dir"], false);
    if (out === undefined) return undefined;
    const [toplevel = "", gitDir = ""] = out.split("\n");
    const problem = checkRepoLocation({ root: resolve(dir), toplevel, gitDir });
    if (problem)
      throw new MeshflowError("repo_unsafe", `${problem}; flow refuses to run git there`, {
        details: { dir: resolve(dir), toplevel, gitDir },
      });
    return new Git(toplevel, gitDir);
  }

  /**
   * The linked worktree meshflow made at `dir` (its `.git` file names its folder in the repository),
   * checked as {@link find} checks a repository, without starting git.
   */
  static linked(dir: string): Git {
    const root = resolve(dir);
    const named = /^gitdir:\s*(.*?)\s*$/m.exec(readFileSync(join(root, ".git"), "utf8"))?.[1];
    const gitDir = named ? resolve(root, named) : "";
    const problem = checkRepoLocation({ root, toplevel: root, gitDir });
    if (problem)
      throw new MeshflowError("repo_unsafe", `${problem}; flow refuses to run git there`, {
        details: { dir: root, toplevel: root, gitDir },
      });
    return new Git(root, gitDir);
  }

  /** `git <args>` in the repository; throws `dependency_missing`/`git_failed` naming the command on failure. */
  async git(args: readonly string[]): Promise<string> {
    return (await run(this.root, [...this.#pinned, ...args], true)) ?? "";
  }

  /**
   * `git <args>` for meshflow's own bookkeeping of the repository (worktrees, merges, branches): the
   * repository's hooks are off (`core.hooksPath=/dev/null`), so its config runs no program of its own
   * there. Resolves to the output, or undefined when git exits non-zero (a merge that conflicts).
   */
  async attempt(args: readonly string[]): Promise<string | undefined> {
    return run(this.root, [...this.#pinned, ...HOOKS_OFF, ...args], false);
  }

  /**
   * As {@link attempt}, with git's exit code and output whatever the code (`merge-tree` says what
   * conflicts on stdout, exiting 1).
   */
  async outcome(args: readonly string[]): Promise<{ code: number | null; stdout: string }> {
    const outcome = await spawnGit(this.root, [...this.#pinned, ...HOOKS_OFF, ...args]);
    return { code: outcome.exitCode, stdout: outcome.stdout.text };
  }

  /** As {@link attempt}, but throws `git_failed` naming the command when git exits non-zero. */
  async plumbing(args: readonly string[]): Promise<string> {
    return (await run(this.root, [...this.#pinned, ...HOOKS_OFF, ...args], true)) ?? "";
  }

  /** The repository-relative form of `path`, or undefined when it is outside the repository. */
  relative(path: string): string | undefined {
    const rel = relative(this.root, resolve(path));
    if (!rel || rel.startsWith(`..${sep}`) || rel === "..") return undefined;
    return rel.split(sep).join("/");
  }

  /**
   * Every changed, staged or untracked path, each with its status and a digest of its content; paths
   * `ignored` says are left out (and never read: the run store's files grow during a run).
   * `digests: false`: the paths and their status only, no file read.
   */
  async state(ignored: (path: string) => boolean = () => false, digests = true): Promise<TreeState> {
    // Submodules: only a new commit checked out in one shows, never their files (git would enter them).
    const out = await this.git([
      "status",
      "--porcelain=v1",
      "-z",
      "--untracked-files=all",
      "--ignore-submodules=dirty",
    ]);
    const state = new Map<string, string>();
    const parts = out.split("\0");
    for (let i = 0; i < parts.length; i++) {
      const entry = parts[i] ?? "";
      if (entry.length < 4) continue;
      const code = entry.slice(0, 2);
      const path = entry.slice(3);
      if (code.startsWith("R") || code.startsWith("C")) i++; // the source path follows
      if (!ignored(path)) state.set(path, digests ? `${code} ${digestOf(join(this.root, path))}` : code);
    }
    return state;
  }

  /** Paths whose state differs between `before` and `after` (changed, created, deleted or cleaned). */
  static changed(before: TreeState, after: TreeState): string[] {
    const paths = new Set<string>();
    for (const [path, state] of after) if (before.get(path) !== state) paths.add(path);
    for (const path of before.keys()) if (!after.has(path)) paths.add(path);
    return [...paths].sort();
  }

  /** The current branch name (empty on a detached HEAD). */
  async branch(): Promise<string> {
    return (await this.git(["branch", "--show-current"])).trim();
  }

  /**
   * The current branch name read from `HEAD` itself, without starting git (empty on a detached HEAD);
   * undefined when `HEAD` cannot be read (ask {@link branch} then).
   */
  headBranch(): string | undefined {
    try {
      const head = readFileSync(join(this.gitDir, "HEAD"), "utf8").trim();
      return head.startsWith("ref: refs/heads/") ? head.slice("ref: refs/heads/".length) : "";
    } catch {
      return undefined;
    }
  }

  /** Checks out `branch`, creating it from HEAD when it does not exist. Returns whether it was created. */
  async checkoutBranch(branch: string): Promise<boolean> {
    if ((await this.branch()) === branch) return false;
    const exists = await run(
      this.root,
      [...this.#pinned, "rev-parse", "--verify", "--quiet", `refs/heads/${branch}`],
      false,
    );
    await this.git(exists === undefined ? ["checkout", "-b", branch] : ["checkout", branch]);
    return exists === undefined;
  }

  /**
   * Commits exactly `paths` (added first, deletions included), each taken literally, with `message`
   * paragraphs; returns the new commit id. Nothing else staged is committed (`commit -- <paths>`).
   */
  async commit(paths: readonly string[], message: readonly string[]): Promise<string> {
    await this.record(paths, message);
    return (await this.git(["rev-parse", "HEAD"])).trim();
  }

  /** As {@link commit}, without asking git for the new commit's id (one git process less). */
  async record(paths: readonly string[], message: readonly string[]): Promise<void> {
    await this.git(["add", "-A", "--", ...paths]);
    // No automatic maintenance after it (one process less): the user's own commits still run it.
    await this.git([
      "-c",
      "maintenance.auto=false",
      "commit",
      "--quiet",
      ...message.flatMap((m) => ["-m", m]),
      "--",
      ...paths,
    ]);
  }
}

function digestOf(file: string): string {
  try {
    return createHash("sha1").update(readFileSync(file)).digest("hex").slice(0, 16);
  } catch {
    return "-"; // deleted, or a folder (a submodule)
  }
}

/** Variables that would point git at another repository, work tree or index than the checked ones. */
const LOCATION_VARIABLES = new Set([
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_COMMON_DIR",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_NAMESPACE",
  "GIT_LITERAL_PATHSPECS",
  "GIT_GLOB_PATHSPECS",
  "GIT_NOGLOB_PATHSPECS",
  "GIT_ICASE_PATHSPECS",
]);

function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!LOCATION_VARIABLES.has(key)) env[key] = value;
  return { ...env, GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" };
}

function spawnGit(cwd: string, args: readonly string[]) {
  return runProcess("git", [...GIT_GLOBAL, ...args], {
    cwd,
    timeoutMs: TIMEOUT_MS,
    maxOutputBytes: MAX_OUTPUT,
    keepStdout: "head",
    killGraceMs: 1000,
    env: gitEnv(),
  });
}

async function run(cwd: string, args: readonly string[], required: boolean): Promise<string | undefined> {
  const outcome = await spawnGit(cwd, args);
  if (outcome.exitCode === 0) return outcome.stdout.text;
  if (!required) return undefined;
  if (outcome.spawnError)
    throw new MeshflowError("dependency_missing", `git could not be started: ${outcome.spawnError.message}`);
  throw new MeshflowError(
    "git_failed",
    `git ${args.find((a, i) => !a.startsWith("-") && args[i - 1] !== "-c") ?? ""} failed in ${cwd} (exit ${outcome.exitCode ?? outcome.signal}): ${outcome.stderr.text.trim() || outcome.stdout.text.trim()}`,
  );
}
