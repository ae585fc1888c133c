import { type ChildProcess, spawn } from "node:child_process";
import { PassThrough } from "node:stream";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { JsonRpcLineReader } from "./JsonRpcLineReader.js";

/** What {@link DetachedStdioTransport} starts. */
export interface DetachedStdioParameters {
  command: string;
  args?: readonly string[];
  /** Merged over the SDK's safe default environment (PATH, HOME, …), as its own transport does. */
  env?: Record<string, string>;
  cwd?: string;
}

const GRACE_MS = 2_000;

/** Process groups of the servers still running; killed when this process exits, however it exits. */
const live = new Set<number>();
let exitHook = false;
function track(pid: number): void {
  live.add(pid);
  if (exitHook) return;
  exitHook = true;
  // `process.exit()` (a second Ctrl-C) skips every async close: the servers, detached from our
  // process group, would outlive us. `exit` handlers run synchronously, so `kill` still works here.
  process.once("exit", () => {
    for (const group of live) killGroup(group, "SIGKILL");
  });
}

/**
 * The SDK's stdio client transport, but the server runs in a process group of its own: a Ctrl-C on
 * the terminal (SIGINT to the foreground group) reaches `flow`, which decides what happens to the
 * calls in flight, never the servers themselves. Closing ends stdin, then signals the whole group
 * (the server and anything it started): SIGTERM, then SIGKILL.
 */
export class DetachedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The server's stderr, available before {@link start} so no early line is lost. */
  readonly stderr = new PassThrough();
  private child: ChildProcess | undefined;
  private readonly buffer = new JsonRpcLineReader();
  private readonly params: DetachedStdioParameters;
  private spawned: number | undefined;

  constructor(params: DetachedStdioParameters) {
    this.params = params;
  }

  /** The pid while the transport holds the child. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The pid the child was spawned with (also its process group id), kept after close. */
  get spawnedPid(): number | undefined {
    return this.spawned;
  }

  start(): Promise<void> {
    if (this.child) throw new Error("DetachedStdioTransport already started");
    return new Promise((resolve, reject) => {
      const child = spawn(this.params.command, [...(this.params.args ?? [])], {
        env: { ...getDefaultEnvironment(), ...this.params.env },
        stdio: ["pipe", "pipe", "pipe"],
        cwd: this.params.cwd,
        detached: true,
        windowsHide: true,
      });
      this.child = child;
      child.on("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on("spawn", () => {
        this.spawned = child.pid;
        if (child.pid !== undefined) track(child.pid);
        resolve();
      });
      child.on("close", () => {
        if (this.child === child) this.child = undefined;
        this.onclose?.();
      });
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("data", (chunk: Buffer) => {
        this.buffer.append(chunk);
        this.drainBuffer();
      });
      child.stderr?.pipe(this.stderr);
    });
  }

  private drainBuffer(): void {
    for (;;) {
      try {
        const message = this.buffer.readMessage();
        if (message === null) return;
        this.onmessage?.(message);
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }

  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child) {
      const closed = new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) resolve();
        else child.once("close", () => resolve());
      });
      const within = (ms: number) =>
        Promise.race([closed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
      try {
        child.stdin?.end();
      } catch {
        // Already closed.
      }
      if (!(await within(GRACE_MS))) {
        killGroup(child.pid, "SIGTERM");
        if (!(await within(GRACE_MS))) killGroup(child.pid, "SIGKILL");
      }
    }
    // The server is gone; what it started may not be.
    killGroup(this.spawned, "SIGKILL");
    if (this.spawned !== undefined) live.delete(this.spawned);
    this.buffer.clear();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin) {
        reject(new Error("Not connected"));
        return;
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }
}

/** Signals a process group (the leader's pid), else the process alone; false when neither exists. */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    try {
      process.kill(pid, signal);
      return true;
    } catch {
      return false;
    }
  }
}
