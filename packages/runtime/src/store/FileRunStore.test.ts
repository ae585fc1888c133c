import { appendFileSync, existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileRunStore } from "./FileRunStore.js";
import type { RunRecord } from "./RunRecord.js";

const record = (runId: string): RunRecord => ({
  runId,
  prd: "/x/prd.json",
  prdDigest: "sha256:0",
  stories: ["US-1"],
  options: { agents: [], failFast: false },
  status: "running",
  createdAt: new Date().toISOString(),
  updatedAt: new Date().toISOString(),
  pid: process.pid,
  counts: { passed: 0, failed: 0, blocked: 0, skipped: 0 },
});

describe("FileRunStore", () => {
  it("creates each run folder readable by its owner only, since tool results are kept verbatim", async () => {
    const root = mkdtempSync(join(tmpdir(), "meshflow-store-"));
    const run = await new FileRunStore(root).create(record("r0"));
    await run.journal.begin({ key: "r0/US-1/step1/1", tool: "m__t", argsDigest: "sha256:a" });
    await run.close();
    expect(statSync(join(root, "runs/r0")).mode & 0o777).toBe(0o700);
  });

  it("keeps journal entries by key and ignores a torn last line after a crash", async () => {
    const root = mkdtempSync(join(tmpdir(), "meshflow-store-"));
    const store = new FileRunStore(root);
    const run = await store.create(record("r1"));
    await run.journal.begin({ key: "r1/US-1/step1/1", tool: "m__t", argsDigest: "sha256:a" });
    await run.journal.finish("r1/US-1/step1/1", { content: [{ type: "text", text: "ok" }] }, 5);
    await run.journal.begin({ key: "r1/US-1/step1/2", tool: "m__t", argsDigest: "sha256:b" });
    run.saveSnapshot({ value: "working", n: 1 });
    run.saveSnapshot({ value: "working", n: 2 });
    await run.close();
    appendFileSync(join(root, "runs/r1/journal.ndjson"), '{"state":"finished","key":"r1/US-1/st');
    appendFileSync(join(root, "runs/r1/snapshot.ndjson"), '{"value":"gat');

    const reopened = await store.open("r1");
    expect((await reopened.journal.get("r1/US-1/step1/1"))?.result?.content).toEqual([{ type: "text", text: "ok" }]);
    expect(await reopened.journal.unfinished()).toMatchObject([{ key: "r1/US-1/step1/2", state: "started" }]);
    expect(reopened.loadSnapshot()).toEqual({ value: "working", n: 2 });
    await reopened.close();
  });

  it("writes held-back journal lines, evidence and events before a snapshot, so no saved state relies on a lost line", async () => {
    const root = mkdtempSync(join(tmpdir(), "meshflow-store-"));
    const run = await new FileRunStore(root).create(record("r2"));
    const dir = join(root, "runs/r2");
    const lines = (name: string) =>
      existsSync(join(dir, name)) ? readFileSync(join(dir, name), "utf8").split("\n").filter(Boolean) : [];
    await run.journal.record?.({ key: "r2/US-1/step1/1", tool: "m__read", argsDigest: "sha256:a" }, { content: [] }, 1);
    run.writeEvidence("US-1", { status: "passed" });
    run.appendEvent({ type: "story.started", time: "t", runId: "r2", storyId: "US-1" });
    expect([lines("journal.ndjson"), lines("evidence.ndjson"), lines("events.ndjson")]).toEqual([[], [], []]);
    run.saveSnapshot({ value: "concluding" });
    expect(lines("journal.ndjson")).toHaveLength(1);
    expect(lines("evidence.ndjson").map((l) => JSON.parse(l))).toEqual([{ storyId: "US-1", status: "passed" }]);
    expect(lines("events.ndjson").map((l) => JSON.parse(l).type)).toEqual(["story.started"]);
    expect(lines("snapshot.ndjson")).toEqual(['{"value":"concluding"}']);
    // Without a snapshot, they are written within a tenth of a second.
    run.appendEvent({ type: "story.started", time: "t", runId: "r2", storyId: "US-2" });
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(lines("events.ndjson")).toHaveLength(2);
    await run.close();
  });

  it("refuses a run another live process holds, and names close run ids", async () => {
    const root = mkdtempSync(join(tmpdir(), "meshflow-store-"));
    const store = new FileRunStore(root);
    await (await store.create(record("nightly-1"))).close();
    writeFileSync(join(root, "runs/nightly-1/lock"), String(process.ppid));
    await expect(store.open("nightly-1")).rejects.toMatchObject({ code: "run_locked" });
    await expect(store.read("nightly-2")).rejects.toThrow(/no run "nightly-2".*did you mean "nightly-1"/);
    await expect(store.create(record("nightly-1"))).rejects.toMatchObject({ code: "usage" });
    await expect(store.create(record("../escape"))).rejects.toMatchObject({ code: "usage" });
    expect((await store.list()).map((r) => r.runId)).toEqual(["nightly-1"]);
  });
});

describe("FileRunStore PRD lock", () => {
  it("refuses a second run of one PRD with prd_busy, for new and resumed runs, and frees it on close", async () => {
    const root = mkdtempSync(join(tmpdir(), "meshflow-store-"));
    const prd = join(root, "prd.json");
    writeFileSync(prd, "{}");
    const store = new FileRunStore(join(root, ".flow"));
    const first = await store.create({ ...record("first"), prd });
    await first.close();
    const second = await store.create({ ...record("second"), prd });
    await expect(store.create({ ...record("third"), prd })).rejects.toMatchObject({
      code: "prd_busy",
      details: { runId: "second", pid: process.pid },
    });
    // Resuming the first run needs the same lock.
    await expect(store.open("first")).rejects.toMatchObject({ code: "prd_busy" });
    await second.close();
    const resumed = await store.open("first");
    await resumed.close();
  });

  it("takes over the lock of a process that is gone", async () => {
    const root = mkdtempSync(join(tmpdir(), "meshflow-store-"));
    const prd = join(root, "prd.json");
    writeFileSync(prd, "{}");
    writeFileSync(join(root, ".prd.json.lock"), JSON.stringify({ runId: "killed", pid: 999999999 }));
    const run = await new FileRunStore(join(root, ".flow")).create({ ...record("next"), prd });
    await run.close();
  });
});
