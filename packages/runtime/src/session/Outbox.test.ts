import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunEvent } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { FileRunStore } from "../store/FileRunStore.js";
import { Outbox } from "./Outbox.js";

const started = (storyId: string): RunEvent => ({ type: "story.started", time: "t", runId: "o1", storyId });
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("Outbox", () => {
  it("hands an event to the listener only after its events, journal lines and the state it leads to are written", async () => {
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
    const seen: Array<{ storyId: unknown; events: number; snapshots: string[]; journal: number }> = [];
    const outbox = new Outbox(
      () => handle,
      (event) =>
        seen.push({
          storyId: "storyId" in event ? event.storyId : undefined,
          events: lines("events.ndjson").length,
          snapshots: lines("snapshot.ndjson"),
          journal: lines("journal.ndjson").length,
        }),
    );

    await handle.journal.record?.(
      { key: "o1/US-1/step1/1", tool: "m__read", argsDigest: "sha256:a" },
      { content: [] },
      1,
    );
    outbox.post(started("US-1"));
    outbox.persist({ value: "working", n: 1 });
    outbox.post(started("US-2"));
    outbox.persist({ value: "working", n: 2 });
    // Nothing goes out during the turn that produced it.
    expect(seen).toEqual([]);
    await turn();
    // One write of the turn's last state, after the journal line and both events.
    const after = { events: 2, snapshots: ['{"value":"working","n":2}'], journal: 1 };
    expect(seen).toEqual([
      { storyId: "US-1", ...after },
      { storyId: "US-2", ...after },
    ]);

    // A flush makes the writes at once, without waiting for the turn to end.
    outbox.post(started("US-3"));
    outbox.flush();
    expect(seen.at(-1)).toMatchObject({ storyId: "US-3", events: 3 });
    await turn();
    expect(seen).toHaveLength(3);
    await handle.close();
  });
});
