import path from "node:path";
import type { GitStatusEntry, GitStatusResult } from "../WorkspaceResults.js";

/** Parsed `git status --porcelain=v2 --branch -z`: the part of `git_status`'s result git gives. */
export type GitStatus = Pick<GitStatusResult, "branch" | "commit" | "upstream" | "ahead" | "behind" | "entries">;

function summarise(xy: string): GitStatusEntry["status"] {
  for (const [letter, status] of [
    ["R", "renamed"],
    ["C", "copied"],
    ["A", "added"],
    ["D", "deleted"],
    ["T", "type_changed"],
  ] as const)
    if (xy.includes(letter)) return status;
  return "modified";
}

/** Parses porcelain v2 output; `prefix` (the root's path in the repository) is stripped from every path. */
export function parseGitStatus(output: string, prefix: string): GitStatus {
  const status: GitStatus = { branch: null, commit: null, upstream: null, ahead: null, behind: null, entries: [] };
  const rel = (p: string): string => path.posix.relative(prefix.replace(/\/$/, "") || ".", p) || ".";
  const records = output.split("\0");
  for (let i = 0; i < records.length; i++) {
    const record = records[i] ?? "";
    if (record.startsWith("# branch.oid ")) {
      const oid = record.slice(13);
      status.commit = oid === "(initial)" ? null : oid;
    } else if (record.startsWith("# branch.head ")) {
      const head = record.slice(14);
      status.branch = head === "(detached)" ? null : head;
    } else if (record.startsWith("# branch.upstream ")) {
      status.upstream = record.slice(18);
    } else if (record.startsWith("# branch.ab ")) {
      const match = /^\+(\d+) -(\d+)$/.exec(record.slice(12));
      if (match) {
        status.ahead = Number(match[1]);
        status.behind = Number(match[2]);
      }
    } else if (record.startsWith("1 ")) {
      const fields = record.split(" ");
      const xy = fields[1] ?? "..";
      status.entries.push({
        path: rel(fields.slice(8).join(" ")),
        status: summarise(xy),
        index: xy[0] ?? ".",
        worktree: xy[1] ?? ".",
      });
    } else if (record.startsWith("2 ")) {
      const fields = record.split(" ");
      const xy = fields[1] ?? "..";
      const origPath = records[++i] ?? "";
      status.entries.push({
        path: rel(fields.slice(9).join(" ")),
        origPath: rel(origPath),
        status: summarise(xy),
        index: xy[0] ?? ".",
        worktree: xy[1] ?? ".",
      });
    } else if (record.startsWith("u ")) {
      const fields = record.split(" ");
      const xy = fields[1] ?? "UU";
      status.entries.push({
        path: rel(fields.slice(10).join(" ")),
        status: "unmerged",
        index: xy[0] ?? "U",
        worktree: xy[1] ?? "U",
      });
    } else if (record.startsWith("? ")) {
      status.entries.push({ path: rel(record.slice(2)), status: "untracked", index: "?", worktree: "?" });
    }
  }
  return status;
}
