import { existsSync, mkdtempSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { watchStopRequests } from "./stopRequests.js";

/** Waits until `check` holds, looking every 50 ms for up to 10 s. */
async function eventually(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
  expect(check()).toBe(true);
}

describe("watchStopRequests", () => {
  it("ignores and removes a request left from before, then stops once on a new one with its reason", async () => {
    // A request written for an earlier process of the run (before a resume) must not stop the resumed one.
    const dir = mkdtempSync(join(tmpdir(), "meshflow-stop-"));
    const file = join(dir, "stop-requested");
    writeFileSync(file, "old request\n");
    const past = new Date(Date.now() - 60_000);
    utimesSync(file, past, past);
    const reasons: string[] = [];
    let runId: string | undefined;
    const unwatch = watchStopRequests({ file: () => file, runId: () => runId }, (r) => reasons.push(r));
    try {
      runId = "r1";
      await eventually(() => !existsSync(file));
      expect(reasons).toEqual([]);
      writeFileSync(file, "stopped from flow console\n");
      await eventually(() => reasons.length > 0);
      expect(reasons).toEqual(["stopped from flow console"]);
    } finally {
      unwatch();
    }
    // The watch removes the request when it ends: a later resume starts clean.
    expect(existsSync(file)).toBe(false);
  });
});
