import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { queuedCopiesDir, queuedPrdFolder, queuedPrdPath, sweepQueuedCopies } from "./runJobProcessor.js";

describe("queuedPrdPath", () => {
  it("keeps the copy in the store, named after the worker's pid, never in the workspace", () => {
    expect(queuedPrdPath("/store", "q1.2", 42)).toBe("/store/queued/42-q1.2.json");
  });
});

describe("queuedPrdFolder", () => {
  it("is the PRD's folder under the workdir when it exists there, else the workdir", () => {
    const workdir = mkdtempSync(join(tmpdir(), "meshflow-queued-"));
    mkdirSync(join(workdir, "prd"));
    expect(queuedPrdFolder(workdir, "prd/a.json")).toBe(join(workdir, "prd"));
    expect(queuedPrdFolder(workdir, "elsewhere/a.json")).toBe(workdir);
    expect(queuedPrdFolder(workdir, "../outside/a.json")).toBe(workdir);
    expect(queuedPrdFolder(workdir, "")).toBe(workdir);
  });
});

describe("sweepQueuedCopies", () => {
  it("removes the copies of workers that no longer run and keeps those of live ones", () => {
    const store = mkdtempSync(join(tmpdir(), "meshflow-store-"));
    mkdirSync(queuedCopiesDir(store));
    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    writeFileSync(queuedPrdPath(store, "q1", dead), "{}");
    writeFileSync(join(queuedCopiesDir(store), `.${dead}-q1.json.lock`), "{}");
    writeFileSync(queuedPrdPath(store, "q2", process.pid), "{}");
    writeFileSync(queuedPrdPath(store, "q3", process.ppid), "{}");
    writeFileSync(join(queuedCopiesDir(store), `.${process.ppid}-q3.json.lock`), "{}");
    expect(sweepQueuedCopies(store).sort()).toEqual([`${dead}-q1.json`, `.${dead}-q1.json.lock`].sort());
    expect(readdirSync(queuedCopiesDir(store)).sort()).toEqual(
      [`${process.pid}-q2.json`, `${process.ppid}-q3.json`, `.${process.ppid}-q3.json.lock`].sort(),
    );
    expect(sweepQueuedCopies(join(store, "none"))).toEqual([]);
  });
});
