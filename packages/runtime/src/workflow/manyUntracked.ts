import type { TreeState } from "./Git.js";
import { oneLine } from "./oneLine.js";

/**
 * Untracked files (neither tracked nor ignored by git) from which a run says that reading them around
 * each story is slow: every one of them is read and digested before and after each story, to tell
 * which files the story changed.
 */
export const MANY_UNTRACKED = 1_000;

/**
 * A warning when `state` (see `Git.state`) holds at least {@link MANY_UNTRACKED} untracked files, naming
 * the folders that hold most of them (a project's `node_modules/` not in `.gitignore`, say); else
 * undefined.
 */
export function manyUntracked(state: TreeState): string | undefined {
  let count = 0;
  const byFolder = new Map<string, number>();
  for (const [path, status] of state) {
    if (!status.startsWith("??")) continue;
    count++;
    const slash = path.indexOf("/");
    if (slash > 0) byFolder.set(path.slice(0, slash + 1), (byFolder.get(path.slice(0, slash + 1)) ?? 0) + 1);
  }
  if (count < MANY_UNTRACKED) return undefined;
  const most = [...byFolder].sort((a, b) => b[1] - a[1]).slice(0, 3);
  const where = most.length
    ? ` (${most.map(([folder, n]) => `${n.toLocaleString("en-US")} under ${oneLine(folder)}`).join(", ")})`
    : "";
  return `${count.toLocaleString("en-US")} files git neither tracks nor ignores${where}: each story reads them all, before and after it, to tell which files it changed, which slows every story down; add what is not the project's own work (dependencies, build output) to .gitignore`;
}
