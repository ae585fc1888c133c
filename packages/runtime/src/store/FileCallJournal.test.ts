import { appendFileSync, existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileCallJournal } from "./FileCallJournal.js";

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });

describe("FileCallJournal", () => {
  it("reads each finished result back from its place in the file, across reopenings and multi-byte text", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "meshflow-journal-")), "journal.ndjson");
    const journal = new FileCallJournal(file);
    const big = "é✓".repeat(50_000); // spans several read chunks, split inside characters
    for (let i = 0; i < 5; i++) {
      await journal.begin({ key: `k${i}`, tool: "s__t", argsDigest: `sha256:${i}` });
      await journal.finish(`k${i}`, text(i === 2 ? big : `r${i}`), i);
    }
    await journal.begin({ key: "open", tool: "s__t", argsDigest: "sha256:o" });
    expect((await journal.get("k2"))?.result).toEqual(text(big));
    expect((await journal.get("k4"))?.result).toEqual(text("r4"));
    await journal.close();

    const reopened = new FileCallJournal(file);
    for (let i = 0; i < 5; i++)
      expect(await reopened.get(`k${i}`)).toMatchObject({
        state: "finished",
        argsDigest: `sha256:${i}`,
        durationMs: i,
        result: text(i === 2 ? big : `r${i}`),
      });
    expect((await reopened.unfinished()).map((e) => e.key)).toEqual(["open"]);
    expect(await reopened.get("open")).not.toHaveProperty("result");
    await reopened.close();
  });

  it("record keeps a call made without begin in one line, found again after reopening", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "meshflow-journal-")), "journal.ndjson");
    const journal = new FileCallJournal(file);
    await journal.record({ key: "safe", tool: "s__read", argsDigest: "sha256:r" }, text("once"), 3);
    await journal.close();
    expect(readFileSync(file, "utf8").trim().split("\n")).toHaveLength(1);
    const reopened = new FileCallJournal(file);
    expect(await reopened.get("safe")).toMatchObject({
      key: "safe",
      tool: "s__read",
      argsDigest: "sha256:r",
      state: "finished",
      durationMs: 3,
      result: text("once"),
    });
    // Run again (a transient failure is not replayed for a safe call): the newer result wins.
    await reopened.record({ key: "safe", tool: "s__read", argsDigest: "sha256:r" }, text("twice"), 4);
    expect((await reopened.get("safe"))?.result).toEqual(text("twice"));
    expect(await reopened.unfinished()).toEqual([]);
    await reopened.close();
  });

  it("holds a recorded line back until the next line with effects or a flush, in order, and reads it at once", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "meshflow-journal-")), "journal.ndjson");
    const lines = () => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : []);
    const journal = new FileCallJournal(file);
    await journal.record({ key: "read1", tool: "s__read", argsDigest: "sha256:1" }, text("one"), 1);
    await journal.record({ key: "read2", tool: "s__read", argsDigest: "sha256:2" }, text("two"), 1);
    expect(lines()).toEqual([]);
    // Looked up before it is written: the entry is there (and reading it writes what waits).
    expect((await journal.get("read2"))?.result).toEqual(text("two"));
    expect(lines()).toHaveLength(2);
    await journal.record({ key: "read3", tool: "s__read", argsDigest: "sha256:3" }, text("three"), 1);
    // A call with effects is durable before it is submitted, and what waited goes out first.
    await journal.begin({ key: "write", tool: "s__write", argsDigest: "sha256:w" });
    expect(lines().map((l) => JSON.parse(l).key)).toEqual(["read1", "read2", "read3", "write"]);
    await journal.record({ key: "read4", tool: "s__read", argsDigest: "sha256:4" }, text("four"), 1);
    journal.flush();
    expect(lines()).toHaveLength(5);
    await journal.record({ key: "read5", tool: "s__read", argsDigest: "sha256:5" }, text("five"), 1);
    await journal.close();
    const reopened = new FileCallJournal(file);
    expect((await reopened.get("read5"))?.result).toEqual(text("five"));
    expect((await reopened.unfinished()).map((e) => e.key)).toEqual(["write"]);
    await reopened.close();
  });

  it("release drops finished calls from memory only: a reopened journal still has them, and an open call stays", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "meshflow-journal-")), "journal.ndjson");
    const journal = new FileCallJournal(file);
    await journal.begin({ key: "done", tool: "s__t", argsDigest: "sha256:d" });
    await journal.finish("done", text("r"), 1);
    await journal.begin({ key: "open", tool: "s__t", argsDigest: "sha256:o" });
    journal.release(["done", "open", "never"]);
    expect(await journal.get("done")).toBeUndefined();
    expect((await journal.unfinished()).map((e) => e.key)).toEqual(["open"]);
    await journal.close();
    const reopened = new FileCallJournal(file);
    expect(await reopened.get("done")).toMatchObject({ state: "finished", result: text("r") });
    await reopened.close();
  });

  it("cuts a torn last line when it opens, so the next line and the next reading are whole", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "meshflow-journal-")), "journal.ndjson");
    const journal = new FileCallJournal(file);
    await journal.begin({ key: "a", tool: "s__t", argsDigest: "sha256:a" });
    await journal.close();
    appendFileSync(file, '{"state":"finished","key":"a","res');
    const resumed = new FileCallJournal(file);
    expect((await resumed.get("a"))?.state).toBe("started");
    await resumed.finish("a", text("again"), 1);
    expect((await resumed.get("a"))?.result).toEqual(text("again"));
    await resumed.close();
    expect(readFileSync(file, "utf8").split("\n").at(-2)).toContain('"again"');
    expect((await new FileCallJournal(file).get("a"))?.result).toEqual(text("again"));
  });
});
