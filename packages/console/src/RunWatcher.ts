import type { ServerResponse } from "node:http";
import type { RunCatalog } from "./RunCatalog.js";

/** How often the store is looked at for changes (ms). */
export const DEFAULT_WATCH_INTERVAL_MS = 500;

/**
 * Live updates over server-sent events (`GET /api/stream`): the run store is polled (a stat of each
 * run's record and events, no reading) and every client gets `event: runs` with the ids of the runs
 * that changed, plus `event: console` for the console's own changes (guard, overrides). Polling rather
 * than `fs.watch`: it behaves the same on every file system, network ones included.
 */
export class RunWatcher {
  readonly #catalog: RunCatalog;
  readonly #clients = new Set<ServerResponse>();
  readonly #intervalMs: number;
  #stamps = new Map<string, string>();
  #timer: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;

  constructor(catalog: RunCatalog, intervalMs = DEFAULT_WATCH_INTERVAL_MS) {
    this.#catalog = catalog;
    this.#intervalMs = intervalMs;
  }

  /** Clients connected now. */
  get clients(): number {
    return this.#clients.size;
  }

  /** Starts polling. */
  start(): void {
    this.#stamps = this.#catalog.stamps();
    this.#timer = setInterval(() => this.poll(), this.#intervalMs);
    this.#timer.unref();
    // A comment line now and then keeps proxies from closing an idle stream.
    this.#heartbeat = setInterval(() => {
      for (const res of this.#clients) res.write(": keep-alive\n\n");
    }, 15_000);
    this.#heartbeat.unref();
  }

  /** Compares the store with the last look and tells the clients which runs changed. */
  poll(): void {
    if (!this.#clients.size) {
      this.#stamps = this.#catalog.stamps();
      return;
    }
    const now = this.#catalog.stamps();
    const changed: string[] = [];
    for (const [runId, stamp] of now) if (this.#stamps.get(runId) !== stamp) changed.push(runId);
    for (const runId of this.#stamps.keys()) if (!now.has(runId)) changed.push(runId);
    this.#stamps = now;
    if (changed.length) this.broadcast("runs", { changed });
  }

  /** Sends one event to every client. */
  broadcast(event: string, data: unknown): void {
    const frame = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const res of this.#clients) res.write(frame);
  }

  /** Answers `GET /api/stream`: keeps the response open as an event stream. */
  attach(res: ServerResponse): void {
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      connection: "keep-alive",
    });
    res.write("retry: 2000\n\n");
    this.#clients.add(res);
    res.once("close", () => this.#clients.delete(res));
  }

  /** Stops polling and ends every stream. */
  stop(): void {
    clearInterval(this.#timer);
    clearInterval(this.#heartbeat);
    for (const res of this.#clients) res.end();
    this.#clients.clear();
  }
}
