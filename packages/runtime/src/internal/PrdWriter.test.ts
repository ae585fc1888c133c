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
    const errors: unknown[] = [];
    const writer = new PrdWriter(file, { intervalMs: 0, onError: (error) => errors.push(error) });
    writer.mark({ storyId: "A", note: "passed in run r1" });
    writer.flush();
    expect(passes(file)).toEqual(["A:true", "B:false"]);
    writeFileSync(file, original); // an editor saves the copy it read before A was marked
    writer.mark({ storyId: "B", note: "passed in run r1" });
    writer.flush();
    expect(passes(file)).toEqual(["A:false", "B:true"]);
    writer.close();
    expect(passes(file)).toEqual(["A:true", "B:true"]);
    expect(errors).toEqual([]);
  });

  it("leaves a file only it wrote as it is at close", () => {
    const { file } = prdFile();
    const writer = new PrdWriter(file, { intervalMs: 0, onError: () => {} });
    writer.mark({ storyId: "A", note: "n" });
    writer.mark({ storyId: "B", note: "n" });
    writer.flush();
    const before = readFileSync(file, "utf8");
    writer.close();
    expect(readFileSync(file, "utf8")).toBe(before);
    expect(passes(file)).toEqual(["A:true", "B:true"]);
  });
});
