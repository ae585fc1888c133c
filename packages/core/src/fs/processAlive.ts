import { readFileSync } from "node:fs";

/**
 * True when a process with this pid is alive on this machine (a process of another user counts). A
 * zombie (a process that exited, not yet reaped by its parent) is not alive: it holds nothing.
 */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return !zombie(pid);
}

/** Linux: the state in `/proc/<pid>/stat` is Z. Elsewhere (no `/proc`), never. */
function zombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "<pid> (<command, may hold spaces and parentheses>) <state> …"
    return stat.charAt(stat.lastIndexOf(")") + 2) === "Z";
  } catch {
    return false;
  }
}
