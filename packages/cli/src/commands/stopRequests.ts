import { readFileSync, rmSync, statSync } from "node:fs";

/** How often a run looks for a stop request: a person pressed a button, a fraction of a second is soon enough. */
const POLL_MS = 500;

/** Where a run's stop request lives, and which run is this process's (known once the run has started). */
export interface StopRequestSource {
  file(runId: string): string;
  runId(): string | undefined;
}

/**
 * Watches for a stop request of this process's run (a file `flow console` writes in the run folder) and
 * calls `stop` with its reason once. A request older than the watch (left from before a resume) is
 * removed and ignored; the request is removed when the watch ends. Returns the function that ends it.
 */
export function watchStopRequests(source: StopRequestSource, stop: (reason: string) => void): () => void {
  const since = Date.now();
  let file: string | undefined;
  let asked = false;
  const check = () => {
    const runId = source.runId();
    if (!runId || asked) return;
    file ??= source.file(runId);
    let modified: number;
    try {
      modified = statSync(file).mtimeMs;
    } catch {
      return; // no request
    }
    if (modified < since) {
      rmSync(file, { force: true });
      return;
    }
    asked = true;
    let reason = "";
    try {
      reason = readFileSync(file, "utf8").trim().slice(0, 200);
    } catch {
      // Removed between the two reads: still a request.
    }
    stop(reason || "a stop was requested");
  };
  const timer = setInterval(check, POLL_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    if (file) rmSync(file, { force: true });
  };
}
