import { lstatSync, readFileSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** Where git says a repository is, for a folder in it (`rev-parse --show-toplevel --absolute-git-dir`). */
export interface RepoLocation {
  /** The folder meshflow works in (a workspace root, a PRD's folder). */
  root: string;
  /** git's work tree top for it. */
  toplevel: string;
  /** git's repository folder. */
  gitDir: string;
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function inside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/**
 * Checks that git's work tree and repository are the ones the root's own `.git` names, so a repository
 * cannot point git elsewhere: `core.worktree=/outside` (git would list and diff files of another folder)
 * or a `.git` file whose `gitdir:` names another repository (git would read that one's history and
 * index). Accepted: a `.git` folder at the top of a work tree that holds the root; a `.git` file naming a
 * repository folder inside that work tree, a linked worktree whose repository names this `.git` back
 * (`git worktree add`), or a submodule's folder under a `.git/modules/` of a repository that holds the
 * work tree. Returns what is wrong, or undefined when git may be run there (pinned with
 * `GIT_DIR`/`GIT_WORK_TREE` to what was checked).
 */
export function checkRepoLocation(location: RepoLocation): string | undefined {
  const root = real(location.root);
  const toplevel = real(location.toplevel);
  const gitDir = real(location.gitDir);
  if (!inside(toplevel, root))
    return `git's work tree for ${root} is ${toplevel}, which does not hold it (core.worktree or GIT_WORK_TREE points elsewhere)`;
  const dotGit = join(toplevel, ".git");
  let isFile: boolean;
  try {
    const stat = lstatSync(dotGit);
    if (stat.isDirectory()) {
      if (real(dotGit) === gitDir) return undefined;
      return `git uses the repository ${gitDir} for ${toplevel}, not its own ${dotGit} (core.worktree points elsewhere)`;
    }
    isFile = stat.isFile();
  } catch {
    isFile = false;
  }
  if (!isFile) return `git's work tree ${toplevel} has no .git of its own (core.worktree of ${gitDir} points at it)`;
  const named = /^gitdir:\s*(.*?)\s*$/m.exec(readFileSync(dotGit, "utf8"))?.[1];
  if (!named || real(resolve(toplevel, named)) !== gitDir)
    return `${dotGit} does not name the repository git uses (${gitDir})`;
  if (inside(toplevel, gitDir)) return undefined;
  if (backLinked(gitDir, dotGit)) return undefined;
  const modules = gitDir.lastIndexOf(`${sep}.git${sep}modules${sep}`);
  if (modules >= 0 && inside(gitDir.slice(0, modules) || sep, toplevel)) return undefined;
  return `${dotGit} points git at ${gitDir}, a repository outside ${toplevel} that is neither its linked worktree's nor its submodule's`;
}

/** A linked worktree's repository folder names the worktree's `.git` file in its own `gitdir` file. */
function backLinked(gitDir: string, dotGit: string): boolean {
  try {
    const back = readFileSync(join(gitDir, "gitdir"), "utf8").trim();
    return real(resolve(dirname(join(gitDir, "gitdir")), back)) === real(dotGit);
  } catch {
    return false;
  }
}
