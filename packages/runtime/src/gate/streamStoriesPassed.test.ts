import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRoutingTable, type PrdSource, scanPrdFile } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { type WriteBackCache, writeStoriesPassed } from "./writeStoryPassed.js";

function file(text: string, mode = 0o640): string {
  const path = join(mkdtempSync(join(tmpdir(), "meshflow-prd-")), "prd.json");
  writeFileSync(path, text, { mode });
  return path;
}

/** The source the run's preflight gives the write-back: the file's digest and story byte spans. */
async function sourceOf(path: string): Promise<PrdSource> {
  const scan = await scanPrdFile(path, { routing: loadRoutingTable() }, () => {});
  if (!scan.source) throw new Error(`no source: ${JSON.stringify(scan.problems)}`);
  return scan.source;
}

const story = (i: number, notes = "") => ({
  id: `S${i}`,
  title: i % 3 ? `Story ${i}` : `Störy ${i} ✓ 🚀`,
  mavenSteps: [1],
  priority: 1,
  passes: false,
  notes,
});

describe("writeStoriesPassed in a stream (a seeded cache)", () => {
  it("writes the same bytes as the general path, batch after batch, keeping the file mode", async () => {
    const stories = Array.from({ length: 9 }, (_, i) => story(i, i % 2 ? 'earlier "q"' : ""));
    const text = `${JSON.stringify({ project: "P ✓", userStories: stories, z: 1 }, null, "\t").replaceAll("\n", "\r\n")}\r\n`;
    const streamed = file(text);
    const general = file(text);
    const source = await sourceOf(streamed);
    const cache: WriteBackCache = { digest: source.digest, source };
    for (const batch of [[4, 1], [0], [8, 2, 2], [3, 5, 6, 7]]) {
      const marks = batch.map((i) => ({ storyId: `S${i}`, index: i, note: `run ✓ ${i}` }));
      expect(writeStoriesPassed(streamed, marks, cache).foreign).toBe(false);
      writeStoriesPassed(general, marks);
      expect(readFileSync(streamed, "utf8")).toBe(readFileSync(general, "utf8"));
      // Still streaming: the cache's source follows the file it wrote.
      expect(cache.source).toBe(source);
    }
    expect(JSON.parse(readFileSync(streamed, "utf8")).userStories.every((s: { passes: boolean }) => s.passes)).toBe(
      true,
    );
    expect(statSync(streamed).mode & 0o777).toBe(0o640);
    // Nothing left to change: no write.
    const before = statSync(streamed).ino;
    expect(writeStoriesPassed(streamed, [{ storyId: "S3", index: 3, note: "run ✓ 3" }], cache).changed).toBe(0);
    expect(statSync(streamed).ino).toBe(before);
  });

  it("keeps an edit saved after the preflight read the file: the general path takes over, and says so", async () => {
    const text = `${JSON.stringify({ userStories: [story(0), story(1)] }, null, 2)}\n`;
    const path = file(text);
    const source = await sourceOf(path);
    const cache: WriteBackCache = { digest: source.digest, source };
    // An editor adds a field at the top: every story moved.
    writeFileSync(path, text.replace('"userStories"', '"description": "added by hand",\n  "userStories"'));
    expect(writeStoriesPassed(path, [{ storyId: "S1", index: 1, note: "n" }], cache).foreign).toBe(true);
    const after = JSON.parse(readFileSync(path, "utf8"));
    expect(after.description).toBe("added by hand");
    expect(after.userStories.map((s: { passes: boolean }) => s.passes)).toEqual([false, true]);
    expect(cache.source).toBeUndefined();
  });

  it("takes the general path for a story without a notes field, and for spans that do not hold the story", async () => {
    const text = `${JSON.stringify({ userStories: [{ id: "A", title: "a", mavenSteps: [1], priority: 1, passes: false }, story(1)] }, null, 2)}\n`;
    const path = file(text);
    const source = await sourceOf(path);
    writeStoriesPassed(path, [{ storyId: "A", index: 0, note: "n" }], { digest: source.digest, source });
    expect(JSON.parse(readFileSync(path, "utf8")).userStories[0]).toMatchObject({ passes: true, notes: "n" });

    const other = file(text);
    const wrong = await sourceOf(other);
    // The mark names story S1 but points at A's bytes.
    writeStoriesPassed(other, [{ storyId: "S1", index: 0, note: "n" }], { digest: wrong.digest, source: wrong });
    const stories = JSON.parse(readFileSync(other, "utf8")).userStories;
    expect(stories.map((s: { passes: boolean }) => s.passes)).toEqual([false, true]);
  });
});
