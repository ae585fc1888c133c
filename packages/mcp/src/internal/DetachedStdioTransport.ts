import type { ChildProcess } from "node:child_process";
import { PassThrough } from "node:stream";
import { serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { JsonRpcLineReader } from "./JsonRpcLineReader.js";
import { NoiseLog, OversizedMessageError, tooLargeResponse } from "./oversized.js";
import { takePrestarted } from "./prestartedServers.js";
import {
  type DetachedStdioParameters,
  killGroup,
  spawnServer,
  stopServer,
  trackGroup,
  untrackGroup,
} from "./stdioServerProcess.js";

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
  private readonly noise = new NoiseLog((error) => this.onerror?.(error));
  private readonly buffer = new JsonRpcLineReader({
    onMessage: (message) => this.onmessage?.(message),
    onOversized: (oversized) => {
      // The call it answers fails alone and the stream resyncs on the next line. Without an id the
      // answer cannot be matched to its call: the server is restarted so no call waits forever.
      if (oversized.id !== undefined) this.onmessage?.(tooLargeResponse(oversized.id, oversized));
      else {
        this.onerror?.(new OversizedMessageError(oversized));
        void this.close();
      }
    },
    onNoise: (line, error) => this.noise.line(line, error),
  });
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
      // A server started ahead for exactly these parameters (`@meshflow/mcp/prestart`) is taken over.
      const prestarted = takePrestarted(this.params);
      const child = prestarted?.child ?? spawnServer(this.params);
      this.child = child;
      const spawned = () => {
        this.spawned = child.pid;
        if (child.pid !== undefined) trackGroup(child.pid);
        resolve();
      };
      child.on("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      if (prestarted?.spawned) spawned();
      else child.on("spawn", spawned);
      child.on("close", () => {
        if (this.child === child) this.child = undefined;
        this.onclose?.();
      });
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("data", (chunk: Buffer) => this.buffer.push(chunk));
      child.stderr?.pipe(this.stderr);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child) await stopServer(child);
    // The server is gone; what it started may not be.
    killGroup(this.spawned, "SIGKILL");
    untrackGroup(this.spawned);
    this.buffer.clear();
    this.noise.finish();
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
