import { readdirSync, readFileSync } from "node:fs";

/** Name of the environment variable that marks every process started under one run. */
export const PROCESS_TREE_ENV = "MESHFLOW_PROCESS_TREE";

/** Where processes can be listed: Linux's /proc. Elsewhere only the process group is killed (see the README). */
const PROC = process.platform === "linux" ? "/proc" : undefined;

interface ProcStat {
  pid: number;
  ppid: number;
  pgrp: number;
  session: number;
  start: string;
  zombie: boolean;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`${PROC}/${pid}/stat`, "utf8");
    const after = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return {
      pid,
      ppid: Number(after[1]),
      pgrp: Number(after[2]),
      session: Number(after[3]),
      start: after[19] ?? "",
      zombie: after[0] === "Z" || after[0] === "X",
    };
  } catch {
    return undefined;
  }
}

function hasMarker(pid: number, marker: Buffer): boolean {
  try {
    // The environment a process was started with: inherited by every descendant that does not clear it.
    return readFileSync(`${PROC}/${pid}/environ`).includes(marker);
  } catch {
    return false;
  }
}

/**
 * Every process a run started, found on Linux by three traits: a parent already known, a process group or
 * session created by one of them (`setsid`, `detached: true`), or the run's marker in its environment
 * (which survives a double fork that re-parents a process to init). Lets a timeout kill what left the
 * process group. Known processes are remembered with their start time, so a reused pid is never killed.
 */
export class ProcessTree {
  /** `PROCESS_TREE_ENV=<id>` as it appears in /proc/<pid>/environ. */
  private readonly marker: Buffer;
  private readonly known = new Map<number, string>();
  private readonly groups = new Set<number>();
  private readonly sessions = new Set<number>();

  /** False where processes cannot be listed (not Linux): then {@link scan} finds nothing. */
  static readonly supported = PROC !== undefined;

  constructor(id: string, leader: number) {
    this.marker = Buffer.from(`${PROCESS_TREE_ENV}=${id}`);
    this.groups.add(leader);
    this.sessions.add(leader);
    const stat = PROC ? readStat(leader) : undefined;
    if (stat) this.known.set(leader, stat.start);
  }

  /**
   * Looks at every process and records those that belong to the run; `byEnvironment` also reads each
   * one's environment (slower: done when killing). Returns the living members.
   */
  scan(byEnvironment: boolean): ProcStat[] {
    if (!PROC) return [];
    const all: ProcStat[] = [];
    for (const name of readdirSync(PROC)) {
      const pid = Number(name);
      if (!Number.isInteger(pid) || pid === process.pid) continue;
      const stat = readStat(pid);
      if (stat && !stat.zombie) all.push(stat);
    }
    const members = new Map<number, ProcStat>();
    const admit = (p: ProcStat): void => {
      members.set(p.pid, p);
      this.known.set(p.pid, p.start);
      if (p.pgrp === p.pid) this.groups.add(p.pid);
      if (p.session === p.pid) this.sessions.add(p.pid);
    };
    for (const p of all) {
      const remembered = this.known.get(p.pid);
      if (remembered !== undefined && remembered !== p.start) this.known.delete(p.pid);
      if (this.known.get(p.pid) === p.start || this.groups.has(p.pgrp) || this.sessions.has(p.session)) admit(p);
      else if (byEnvironment && hasMarker(p.pid, this.marker)) admit(p);
    }
    // Children of members found later in the list (pids wrap around): repeat until nothing new joins.
    for (let grew = true; grew; ) {
      grew = false;
      for (const p of all)
        if (!members.has(p.pid) && members.has(p.ppid)) {
          admit(p);
          grew = true;
        }
    }
    return [...members.values()];
  }

  /** Sends `signal` to every living member (after a fresh scan, environment included); returns how many. */
  signal(signal: NodeJS.Signals): number {
    let sent = 0;
    for (const p of this.scan(true)) {
      try {
        process.kill(p.pid, signal);
        sent++;
      } catch {
        // ESRCH: gone meanwhile.
      }
    }
    return sent;
  }
}
