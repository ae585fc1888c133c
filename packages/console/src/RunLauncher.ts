import { type ChildProcess, spawn } from "node:child_process";
import { MeshflowError } from "@meshflow/core";
import { newRunId } from "@meshflow/runtime/host";
import { ByteTail } from "./internal/ByteTail.js";

/** A run the console started (`flow run` or `flow resume`) and still runs. */
export interface LaunchedRun {
  runId: string;
  pid: number;
  startedAt: string;
  /** `run`: started from the page; `resume`: the Resume button. */
  command: "run" | "resume";
}

/** What `flow run` is started with from the page: a PRD of the project and the main options. */
export interface RunStart {
  /** The PRD file, absolute (checked to lie in the project). */
  prd: string;
  /** `--story`: only these stories. */
  stories?: string[] | undefined;
  /** `--parallel`. */
  parallel?: number | undefined;
  /** `--model`. */
  model?: string | undefined;
  /** `--harness`. */
  harness?: string | undefined;
}

/** A `flow run` or `flow resume` the console started that has ended: its exit code and the end of its stderr. */
export interface EndedRun extends LaunchedRun {
  endedAt: string;
  code: number | null;
  signal: string | null;
  /**
   * The end of what the command wrote on stderr: at most the launcher's `stderrTailBytes` (4,096 by
   * default) bytes, from a whole line, without terminal colour codes.
   */
  stderrTail: string;
}

/** What became of a command the console started: it still runs (`starting`), or it `ended`. */
export type LaunchState = (LaunchedRun & { state: "starting" }) | (EndedRun & { state: "ended" });

/**
 * `GET /api/runs/:runId` of a run this console started that is not in the run store: its command
 * has not written the run yet (`starting`), or ended before it did (`ended`: an invalid PRD, an
 * unknown MCP server, a bad option), with its exit code and the end of its stderr.
 */
export interface UnstartedRun {
  runId: string;
  launch: LaunchState;
}

/** Ended runs and resumes kept (for the Health page and the pages of runs that never started). */
const DEFAULT_KEEP_ENDED = 20;
/** Bytes of each command's stderr kept (its end). */
const DEFAULT_STDERR_TAIL_BYTES = 4_096;

/**
 * Starts `flow run <prd>` (a run started from the page) and `flow resume <runId>` (the Resume button):
 * the very commands a user types, as child processes in the project folder with their output
 * discarded (the run's events land in the store, where the console reads them). `interruptAll` sends
 * each running child SIGINT, as Ctrl-C would: the run stops between calls and stays resumable.
 */
export class RunLauncher {
  readonly #flowBin: string;
  readonly #storeRoot: string;
  readonly #env: NodeJS.ProcessEnv;
  readonly #cwd: string;
  readonly #runArgs: readonly string[];
  readonly #children = new Map<string, { child: ChildProcess; info: LaunchedRun }>();
  readonly #ended: EndedRun[] = [];
  readonly #keepEnded: number;
  readonly #stderrTailBytes: number;
  readonly #endListeners = new Set<(ended: EndedRun) => void>();

  /**
   * `flowBin`: the `flow` script run with this Node; `storeRoot`: passed as `--store`; `cwd`: the
   * project folder the commands run in (default this process's); `runArgs`: more options of every
   * `flow run` (the console's own `--mcp-config`, `--agents`, `--skills`, `--routing`); `keepEnded`:
   * how many ended commands are remembered (default 20); `stderrTailBytes`: how many bytes of the end
   * of each one's stderr are kept (default 4,096).
   */
  constructor(options: {
    flowBin: string;
    storeRoot: string;
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    runArgs?: readonly string[];
    keepEnded?: number;
    stderrTailBytes?: number;
  }) {
    this.#flowBin = options.flowBin;
    this.#storeRoot = options.storeRoot;
    this.#env = options.env ?? process.env;
    this.#cwd = options.cwd ?? process.cwd();
    this.#runArgs = options.runArgs ?? [];
    this.#keepEnded = Math.max(0, Math.floor(options.keepEnded ?? DEFAULT_KEEP_ENDED));
    this.#stderrTailBytes = options.stderrTailBytes ?? DEFAULT_STDERR_TAIL_BYTES;
  }

  /** The project folder runs start in. */
  get cwd(): string {
    return this.#cwd;
  }

  /** Runs started here that have not ended. */
  running(): LaunchedRun[] {
    return [...this.#children.values()].map((c) => c.info);
  }

  /** The runs and resumes started here that ended, newest first (at most `keepEnded`, 20 by default). */
  ended(): EndedRun[] {
    return [...this.#ended];
  }

  /**
   * What became of the newest command started here for `runId` (still running, or ended and still
   * remembered); undefined for a run this launcher never started or has forgotten.
   */
  launch(runId: string): LaunchState | undefined {
    const running = this.#children.get(runId);
    if (running) return { ...running.info, state: "starting" };
    const ended = this.#ended.find((e) => e.runId === runId);
    return ended ? { ...ended, state: "ended" } : undefined;
  }

  /** Calls `listener` whenever a command started here ends; returns the function that stops it. */
  onEnded(listener: (ended: EndedRun) => void): () => void {
    this.#endListeners.add(listener);
    return () => this.#endListeners.delete(listener);
  }

  /** Starts `flow resume <runId> --store <root>`; `run_locked` when this console already runs it. */
  resume(runId: string): LaunchedRun {
    if (this.#children.has(runId))
      throw new MeshflowError("run_locked", `run "${runId}" is already being resumed by this console`);
    return this.#spawn("resume", runId, ["resume", runId, "--store", this.#storeRoot]);
  }

  /**
   * Starts `flow run <prd> --store <root> --run-id <new id>` with the options given (and the
   * launcher's `runArgs`); the answer names the new run at once.
   */
  start(options: RunStart): LaunchedRun {
    const runId = newRunId();
    const args = ["run", options.prd, "--store", this.#storeRoot, "--run-id", runId, ...this.#runArgs];
    if (options.stories?.length) args.push("--story", ...options.stories);
    if (options.parallel !== undefined) args.push("--parallel", String(options.parallel));
    if (options.model) args.push("--model", options.model);
    if (options.harness) args.push("--harness", options.harness);
    return this.#spawn("run", runId, args);
  }

  #spawn(command: LaunchedRun["command"], runId: string, args: string[]): LaunchedRun {
    const child = spawn(process.execPath, [this.#flowBin, ...args], {
      cwd: this.#cwd,
      env: this.#env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    if (child.pid === undefined) throw new MeshflowError("internal", `could not start flow ${command} (${runId})`);
    const info: LaunchedRun = { runId, pid: child.pid, startedAt: new Date().toISOString(), command };
    const tail = new ByteTail(this.#stderrTailBytes);
    child.stderr?.on("data", (d: Buffer) => tail.push(d));
    this.#children.set(runId, { child, info });
    child.once("close", (code, signal) => {
      this.#children.delete(runId);
      const ended: EndedRun = { ...info, endedAt: new Date().toISOString(), code, signal, stderrTail: tail.text() };
      this.#ended.unshift(ended);
      this.#ended.length = Math.min(this.#ended.length, this.#keepEnded);
      for (const listener of this.#endListeners) listener(ended);
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
