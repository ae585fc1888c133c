import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunEvent } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { FileRunStore } from "../store/FileRunStore.js";
import { Outbox, WRITE_WINDOW_MS } from "./Outbox.js";

const started = (storyId: string): RunEvent => ({ type: "story.started", time: "t", runId: "o1", storyId });
const window = () => new Promise((resolve) => setTimeout(resolve, WRITE_WINDOW_MS + 20));

describe("Outbox", () => {
  it("hands events to the listener together, only after their journal lines and the state they lead to are written", async () => {
    const root = mkdtempSync(join(tmpdir(), "meshflow-outbox-"));
    const handle = await new FileRunStore(root).create({
      runId: "o1",
      prd: join(root, "prd.json"),
      prdDigest: "sha256:0",
      stories: ["US-1"],
      options: { agents: [], failFast: false },
      status: "running",
      createdAt: "t",
      updatedAt: "t",
      pid: process.pid,
      counts: { passed: 0, failed: 0, blocked: 0, skipped: 0 },
    });
    const lines = (name: string) => {
      const file = join(root, "runs/o1", name);
      return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
    };
    const seen: Array<{ storyId: unknown; events: number; snapshots: string[]; journal: number; held: number }> = [];
    let held = 0;
    const outbox = new Outbox(
      () => handle,
      (event) =>
        seen.push({
          storyId: "storyId" in event ? event.storyId : undefined,
          events: lines("events.ndjson").length,
          snapshots: lines("snapshot.ndjson"),
          journal: lines("journal.ndjson").length,
          held,
        }),
      // What others hold back for the run is written first, before the state that relies on it.
      { before: () => (held = lines("snapshot.ndjson").length ? -1 : held + 1) },
    );

    await handle.journal.record?.(
      { key: "o1/US-1/step1/1", tool: "m__read", argsDigest: "sha256:a" },
      { content: [] },
      1,
    );
    outbox.post(started("US-1"));
    outbox.persist(() => ({ value: "working", n: 1 }));
    outbox.post(started("US-2"));
    outbox.persist(() => ({ value: "working", n: 2 }));
    // Nothing goes out at once, nor when the event loop turns.
    expect(seen).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([]);
    await window();
    // One write of the window's last state, after the journal line and both events.
    const after = { events: 2, snapshots: ['{"value":"working","n":2}'], journal: 1, held: 1 };
    expect(seen).toEqual([
      { storyId: "US-1", ...after },
      { storyId: "US-2", ...after },
    ]);

    // A flush makes the writes at once, without waiting for the window to end.
    outbox.post(started("US-3"));
    outbox.flush();
    expect(seen.at(-1)).toMatchObject({ storyId: "US-3", events: 3 });
    await window();
    expect(seen).toHaveLength(3);
    await handle.close();
  });
});
