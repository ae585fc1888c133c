import { type ChildProcess, spawn } from "node:child_process";
import { MeshflowError } from "@meshflow/core";

/** A run the console started (`flow resume`) and still runs. */
export interface LaunchedRun {
  runId: string;
  pid: number;
  startedAt: string;
}

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

  /** Starts `flow resume <runId> --store <root>`; a usage error when this console already runs it. */
  resume(runId: string): LaunchedRun {
    if (this.#children.has(runId))
      throw new MeshflowError("run_locked", `run "${runId}" is already being resumed by this console`);
    const child = spawn(process.execPath, [this.#flowBin, "resume", runId, "--store", this.#storeRoot], {
      env: this.#env,
      stdio: "ignore",
    });
    if (child.pid === undefined) throw new MeshflowError("internal", `could not start flow resume ${runId}`);
    const info: LaunchedRun = { runId, pid: child.pid, startedAt: new Date().toISOString() };
    this.#children.set(runId, { child, info });
    child.once("exit", () => this.#children.delete(runId));
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
