import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PrdWriter } from "./PrdWriter.js";

const story = (id: string) => ({ id, title: id, mavenSteps: [1], priority: 1, passes: false, notes: "" });

function prdFile(): { file: string; original: string } {
  const file = join(mkdtempSync(join(tmpdir(), "meshflow-prdwriter-")), "prd.json");
  const original = `${JSON.stringify({ project: "P", userStories: [story("A"), story("B")] }, null, 2)}\n`;
  writeFileSync(file, original);
  return { file, original };
}

const passes = (file: string) =>
  (JSON.parse(readFileSync(file, "utf8")) as { userStories: Array<{ id: string; passes: boolean }> }).userStories.map(
    (s) => `${s.id}:${s.passes}`,
  );

describe("PrdWriter", () => {
  // Regression: close() trusted a file unchanged since the writer's last write, but that write had
  // started from an editor's save that had dropped an earlier mark; the mark was lost.
  it("writes a mark again at close when an editor's save dropped it before a later write", () => {
    const { file, original } = prdFile();
    const writer = new PrdWriter(file, { intervalMs: 0 });
    writer.mark({ storyId: "A", note: "passed in run r1" });
    writer.flush();
    expect(passes(file)).toEqual(["A:true", "B:false"]);
    writeFileSync(file, original); // an editor saves the copy it read before A was marked
    writer.mark({ storyId: "B", note: "passed in run r1" });
    writer.flush();
    expect(passes(file)).toEqual(["A:false", "B:true"]);
    expect(writer.close()).toEqual({ missing: [] });
    expect(passes(file)).toEqual(["A:true", "B:true"]);
  });

  it("leaves a file only it wrote as it is at close", () => {
    const { file } = prdFile();
    const writer = new PrdWriter(file, { intervalMs: 0 });
    writer.mark({ storyId: "A", note: "n" });
    writer.mark({ storyId: "B", note: "n" });
    writer.flush();
    const before = readFileSync(file, "utf8");
    expect(writer.close()).toEqual({ missing: [] });
    expect(readFileSync(file, "utf8")).toBe(before);
    expect(passes(file)).toEqual(["A:true", "B:true"]);
  });

  it("names the marks it cannot write at close: their story was removed from the PRD", () => {
    const { file } = prdFile();
    const writer = new PrdWriter(file, { intervalMs: 0 });
    writer.mark({ storyId: "A", note: "n" });
    writer.flush();
    // The person removes story A and adds C; B passes afterwards.
    const data = JSON.parse(readFileSync(file, "utf8")) as { userStories: unknown[] };
    writeFileSync(file, JSON.stringify({ ...data, userStories: [story("B"), story("C")] }, null, 2));
    writer.mark({ storyId: "B", note: "n" });
    const { missing, error } = writer.close();
    expect(missing.map((m) => m.storyId)).toEqual(["A"]);
    expect(String(error)).toContain('"A" no longer in userStories');
    expect(passes(file)).toEqual(["B:true", "C:false"]);
  });
});
