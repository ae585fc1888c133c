import { type ChildProcess, spawn } from "node:child_process";
import { MAX_EVENT_LINE } from "./jsonLine.js";

/** Lines of the program's stderr a failed step reports. */
const STDERR_LINES = 20;
/** Characters of one stderr line kept. */
const STDERR_LINE_CHARS = 1_000;
/** Time between SIGTERM to the program's process group and SIGKILL. */
const KILL_GRACE_MS = 2_000;

/** How the program ended. */
export interface HarnessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when it could not be started at all. */
  spawnError?: string;
}

/**
 * One run of a harness program: its own process group (signals meant for `flow` never reach it, and
 * the whole tree is stopped at once), the prompt on stdin, stdout read line by line (a line longer
 * than {@link MAX_EVENT_LINE} is dropped, never held whole), the last {@link STDERR_LINES} lines of
 * stderr kept.
 */
export class HarnessProcess {
  readonly exited: Promise<HarnessExit>;
  readonly #child: ChildProcess;
  readonly #stderr: string[] = [];
  #stderrPartial = "";
  #stopping = false;

  constructor(
    argv: readonly string[],
    options: { cwd: string; env: NodeJS.ProcessEnv; prompt: string; onLine(line: string): void },
  ) {
    const [program = "", ...args] = argv;
    this.#child = spawn(program, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
      shell: false,
    });
    this.exited = new Promise((resolve) => {
      this.#child.once("error", (error) => resolve({ code: null, signal: null, spawnError: error.message }));
      this.#child.once("close", (code, signal) => resolve({ code, signal }));
      // A process the program left behind may hold its output open: once the program itself has
      // exited, what remains of its group is stopped, and its output waited for a moment at most.
      this.#child.once("exit", (code, signal) => {
        this.#signalGroup("SIGKILL");
        setTimeout(() => resolve({ code, signal }), KILL_GRACE_MS).unref();
      });
    });
    this.#child.stdin?.on("error", () => {
      // The program may exit without reading its prompt; its exit says what happened.
    });
    this.#child.stdin?.end(options.prompt);
    let partial = "";
    let dropping = false;
    this.#child.stdout?.setEncoding("utf8");
    this.#child.stdout?.on("data", (chunk: string) => {
      let text = chunk;
      for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n")) {
        const line = partial + text.slice(0, at);
        text = text.slice(at + 1);
        partial = "";
        if (!dropping) options.onLine(line);
        dropping = false;
      }
      if (dropping) return;
      partial += text;
      if (partial.length > MAX_EVENT_LINE) {
        partial = "";
        dropping = true;
      }
    });
    this.#child.stdout?.on("end", () => {
      if (partial && !dropping) options.onLine(partial);
    });
    this.#child.stderr?.setEncoding("utf8");
    this.#child.stderr?.on("data", (chunk: string) => this.#keepStderr(chunk));
  }

  /** The last lines the program wrote to stderr. */
  stderrTail(): string[] {
    const lines = [...this.#stderr];
    if (this.#stderrPartial) lines.push(this.#stderrPartial);
    return lines.slice(-STDERR_LINES);
  }

  /** Stops the program's whole process group: SIGTERM, then SIGKILL after a grace period. */
  stop(): void {
    if (this.#stopping) return;
    this.#stopping = true;
    this.#signalGroup("SIGTERM");
    const timer = setTimeout(() => this.#signalGroup("SIGKILL"), KILL_GRACE_MS);
    timer.unref();
    void this.exited.then(() => clearTimeout(timer));
  }

  #signalGroup(name: NodeJS.Signals): void {
    const pid = this.#child.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, name);
    } catch {
      // The group is gone already.
    }
  }

  #keepStderr(chunk: string): void {
    const parts = (this.#stderrPartial + chunk).split("\n");
    this.#stderrPartial = (parts.pop() ?? "").slice(0, STDERR_LINE_CHARS);
    for (const line of parts) {
      this.#stderr.push(line.slice(0, STDERR_LINE_CHARS));
      if (this.#stderr.length > STDERR_LINES) this.#stderr.shift();
    }
  }
}
