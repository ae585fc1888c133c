import type { ChildProcess } from "node:child_process";
import {
  type DetachedStdioParameters,
  killGroup,
  spawnKey,
  spawnServer,
  stopServer,
  trackGroup,
  untrackGroup,
} from "./stdioServerProcess.js";

/** A server started ahead of its connection, waiting to be taken. */
export interface PrestartedServer {
  child: ChildProcess;
  /** The process is running (its `spawn` event came). */
  spawned: boolean;
  /** It failed to start or already exited: not worth taking. */
  gone: boolean;
}

/** Started servers nobody has taken yet, by {@link spawnKey}. */
const waiting = new Map<string, PrestartedServer[]>();

/** Starts a stdio server now, for a connection made later with exactly these parameters to take over. */
export function prestartServer(params: DetachedStdioParameters): PrestartedServer {
  const child = spawnServer(params);
  const server: PrestartedServer = { child, spawned: false, gone: false };
  child.once("spawn", () => {
    server.spawned = true;
    if (child.pid !== undefined) trackGroup(child.pid);
  });
  // The connection that would take it starts its own server instead, and reports its failure.
  child.once("error", () => {
    server.gone = true;
  });
  child.once("exit", () => {
    server.gone = true;
  });
  const key = spawnKey(params);
  waiting.set(key, [...(waiting.get(key) ?? []), server]);
  return server;
}

/**
 * The running server started with exactly `params`, handed over to the caller (who reads its
 * output from the first byte: nothing was read before), or undefined. One that is gone is dropped.
 */
export function takePrestarted(params: DetachedStdioParameters): PrestartedServer | undefined {
  const key = spawnKey(params);
  const list = waiting.get(key);
  const server = list?.shift();
  if (list && !list.length) waiting.delete(key);
  if (!server) return undefined;
  if (!server.gone) return server;
  void stopPrestarted(server);
  return takePrestarted(params);
}

/** Stops a started server no connection took; it is removed from those waiting. */
export async function stopPrestarted(server: PrestartedServer): Promise<void> {
  for (const [key, list] of waiting) {
    const at = list.indexOf(server);
    if (at < 0) continue;
    list.splice(at, 1);
    if (!list.length) waiting.delete(key);
  }
  server.child.stdout?.resume();
  server.child.stderr?.resume();
  if (!server.gone) await stopServer(server.child);
  killGroup(server.child.pid, "SIGKILL");
  untrackGroup(server.child.pid);
}

/** Whether a connection took the server. */
export function isWaiting(server: PrestartedServer): boolean {
  for (const list of waiting.values()) if (list.includes(server)) return true;
  return false;
}
