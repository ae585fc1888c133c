import { type ChildProcess, spawn } from "node:child_process";
import { MeshflowError } from "@meshflow/core";

/** A run the console started (`flow resume`) and still runs. */
export interface LaunchedRun {
  runId: string;
  pid: number;
  startedAt: string;
}

/** A `flow resume` the console started that has ended: its exit code and the end of its stderr. */
export interface EndedRun extends LaunchedRun {
  endedAt: string;
  code: number | null;
  signal: string | null;
  /** The last lines (at most 2,000 characters) `flow resume` wrote on stderr. */
  stderrTail: string;
}

/** Ended resumes kept for the Health page. */
const KEPT_ENDED = 20;
const TAIL_CHARS = 2_000;

/**
 * Starts `flow resume <runId>` for the console's Resume button: the very command a user types, as a
 * child process with its output discarded (the run's events land in the store, where the console
 * reads them). `interruptAll` sends each running child SIGINT, as Ctrl-C would: the run stops
 * between calls and stays resumable.
 */
export class RunLauncher {
  readonly #flowBin: string;
  readonly #storeRoot: string;
  readonly #env: NodeJS.ProcessEnv;
  readonly #children = new Map<string, { child: ChildProcess; info: LaunchedRun }>();
  readonly #ended: EndedRun[] = [];

  /** `flowBin`: the `flow` script run with this Node; `storeRoot`: passed as `--store`. */
  constructor(options: { flowBin: string; storeRoot: string; env?: NodeJS.ProcessEnv }) {
    this.#flowBin = options.flowBin;
    this.#storeRoot = options.storeRoot;
    this.#env = options.env ?? process.env;
  }

  /** Runs started here that have not ended. */
  running(): LaunchedRun[] {
    return [...this.#children.values()].map((c) => c.info);
  }

  /** The resumes that ended, newest first (at most 20). */
  ended(): EndedRun[] {
    return [...this.#ended];
  }

  /** Starts `flow resume <runId> --store <root>`; `run_locked` when this console already runs it. */
  resume(runId: string): LaunchedRun {
    if (this.#children.has(runId))
      throw new MeshflowError("run_locked", `run "${runId}" is already being resumed by this console`);
    const child = spawn(process.execPath, [this.#flowBin, "resume", runId, "--store", this.#storeRoot], {
      env: this.#env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    if (child.pid === undefined) throw new MeshflowError("internal", `could not start flow resume ${runId}`);
    const info: LaunchedRun = { runId, pid: child.pid, startedAt: new Date().toISOString() };
    let tail = "";
    child.stderr?.on("data", (d: Buffer) => {
      tail = (tail + d.toString("utf8")).slice(-TAIL_CHARS);
    });
    this.#children.set(runId, { child, info });
    child.once("close", (code, signal) => {
      this.#children.delete(runId);
      this.#ended.unshift({ ...info, endedAt: new Date().toISOString(), code, signal, stderrTail: tail });
      this.#ended.length = Math.min(this.#ended.length, KEPT_ENDED);
    });
    child.once("error", () => this.#children.delete(runId));
    return info;
  }

  /** SIGINT to every run started here; returns their ids. */
  interruptAll(): string[] {
    const ids: string[] = [];
    for (const [runId, { child }] of this.#children) {
      child.kill("SIGINT");
      ids.push(runId);
    }
    return ids;
  }

  /** Interrupts every child and waits (at most `ms`) for them to end. */
  async close(ms = 10_000): Promise<void> {
    const exits = [...this.#children.values()].map(
      ({ child }) => new Promise<void>((resolve) => child.once("exit", () => resolve())),
    );
    this.interruptAll();
    await Promise.race([Promise.all(exits), new Promise((r) => setTimeout(r, ms).unref())]);
  }
}
