import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jsoncParser } from "../../json/jsoncParser.js";
import { loadRoutingTable } from "../../routing/RoutingTable.js";
import { scanPrdFile } from "./loadPrdFile.js";
import type { PrdSource } from "./readPrd.js";
import { type PrdWriteCache, writePrdStories } from "./writePrdStories.js";

type WriteBackCache = PrdWriteCache;

const digestOf = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

/** The completion gate's marks: `passes: true` and the note joined to the story's notes. */
function writeStoriesPassed(
  path: string,
  marks: ReadonlyArray<{ storyId: string; index?: number; note: string }>,
  cache?: PrdWriteCache,
): { changed: number; foreign: boolean } {
  const edits = marks.map(({ note, ...mark }) => ({
    ...mark,
    passes: true,
    notes: (notes: string) => (notes.includes(note) ? notes : notes.trim() ? `${notes.trimEnd()} ${note}` : note),
  }));
  const { changed, foreign } = writePrdStories(path, edits, cache);
  return { changed: changed.length, foreign };
}

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

/** What jsonc-parser's edits make of `marks`, one after the other, in the text's own layout. */
function withJsoncEdits(text: string, marks: ReadonlyArray<{ storyId: string; note: string }>): string {
  const { applyEdits, modify, parse } = jsoncParser();
  const indent = /\n([ \t]+)"/.exec(text)?.[1] ?? "";
  const formattingOptions = {
    insertSpaces: !indent.startsWith("\t"),
    tabSize: indent.startsWith("\t") ? 1 : indent.length,
    eol: text.includes("\r\n") ? "\r\n" : "\n",
  };
  let out = text;
  for (const mark of marks) {
    const stories = (parse(out) as { userStories: Array<{ id: string; notes?: string }> }).userStories;
    const index = stories.findIndex((s) => s.id === mark.storyId);
    const notes = stories[index]?.notes ?? "";
    out = applyEdits(out, modify(out, ["userStories", index, "passes"], true, { formattingOptions }));
    const note = notes.trim() ? `${notes.trimEnd()} ${mark.note}` : mark.note;
    out = applyEdits(out, modify(out, ["userStories", index, "notes"], note, { formattingOptions }));
  }
  return out;
}

const story = (i: number, notes = "") => ({
  id: `S${i}`,
  title: i % 3 ? `Story ${i}` : `Störy ${i} ✓ 🚀`,
  mavenSteps: [1],
  priority: 1,
  passes: false,
  notes,
});

describe("writePrdStories in a stream (a seeded cache)", () => {
  it("writes the same bytes as the general path, batch after batch, keeping the file mode", async () => {
    const stories = Array.from({ length: 9 }, (_, i) => story(i, i % 2 ? 'earlier "q"' : ""));
    const text = `${JSON.stringify({ project: "P ✓", userStories: stories, z: 1 }, null, "\t").replaceAll("\n", "\r\n")}\r\n`;
    const streamed = file(text);
    const general = file(text);
    const source = await sourceOf(streamed);
    const cache: WriteBackCache = { ...source };
    for (const batch of [[4, 1], [0], [8, 2, 2], [3, 5, 6, 7]]) {
      const marks = batch.map((i) => ({ storyId: `S${i}`, index: i, note: `run ✓ ${i}` }));
      expect(writeStoriesPassed(streamed, marks, cache).foreign).toBe(false);
      writeStoriesPassed(general, marks);
      expect(readFileSync(streamed, "utf8")).toBe(readFileSync(general, "utf8"));
      // Still streaming: the cache follows the file it wrote.
      expect(cache.digest).toBe(digestOf(streamed));
      expect(cache.spans).toHaveLength(2 * 9);
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

  it("keeps an edit saved after the preflight read the file: the stories are found again, and it says so", async () => {
    const text = `${JSON.stringify({ userStories: [story(0), story(1)] }, null, 2)}\n`;
    const path = file(text);
    const source = await sourceOf(path);
    const cache: WriteBackCache = { ...source };
    // An editor adds a field at the top: every story moved.
    writeFileSync(path, text.replace('"userStories"', '"description": "added by hand",\n  "userStories"'));
    expect(writeStoriesPassed(path, [{ storyId: "S1", index: 1, note: "n" }], cache).foreign).toBe(true);
    const after = JSON.parse(readFileSync(path, "utf8"));
    expect(after.description).toBe("added by hand");
    expect(after.userStories.map((s: { passes: boolean }) => s.passes)).toEqual([false, true]);
    // The stories were found again in the edited file, which the cache follows from now on.
    expect(cache.digest).toBe(digestOf(path));
    expect(cache.spans).toHaveLength(4);
  });

  it("streams stories without passes or notes: the fields are added as the story's first member is written", async () => {
    const bare = (i: number, fields: Record<string, unknown>) => ({
      id: `S${i}`,
      title: "t",
      mavenSteps: [1],
      ...fields,
    });
    const stories = [bare(0, { passes: false }), bare(1, {}), bare(2, { notes: "kept" }), story(3)];
    const marks = [0, 1, 2, 3].map((i) => ({ storyId: `S${i}`, index: i, note: `run ${i}` }));
    const marked = (text: string) => {
      const path = file(text);
      return sourceOf(path).then((source) => {
        const cache: WriteBackCache = { ...source };
        expect(writeStoriesPassed(path, marks, cache)).toEqual({ changed: 4, foreign: false });
        // Still streaming.
        expect(cache.digest).toBe(digestOf(path));
        return readFileSync(path, "utf8");
      });
    };
    for (const text of [
      `${JSON.stringify({ userStories: stories }, null, 2)}\n`,
      `${JSON.stringify({ userStories: stories }, null, "\t").replaceAll("\n", "\r\n")}\r\n`,
    ])
      expect(await marked(text)).toBe(withJsoncEdits(text, marks));
    // A PRD on one line stays on one line.
    const done = (fields: Record<string, unknown>, i: number) => ({ ...fields, passes: true, notes: `run ${i}` });
    expect(await marked(JSON.stringify({ userStories: stories }))).toBe(
      JSON.stringify({
        userStories: [
          done(bare(0, {}), 0),
          done(bare(1, {}), 1),
          { ...bare(2, { notes: "kept run 2" }), passes: true },
          { ...story(3), passes: true, notes: "run 3" },
        ],
      }),
    );
  });

  it("takes the general path for spans that do not hold the story", async () => {
    const text = `${JSON.stringify({ userStories: [{ id: "A", title: "a", mavenSteps: [1], priority: 1, passes: false }, story(1)] }, null, 2)}\n`;
    const other = file(text);
    const wrong = await sourceOf(other);
    // The mark names story S1 but points at A's bytes.
    writeStoriesPassed(other, [{ storyId: "S1", index: 0, note: "n" }], { ...wrong });
    const stories = JSON.parse(readFileSync(other, "utf8")).userStories;
    expect(stories.map((s: { passes: boolean }) => s.passes)).toEqual([false, true]);
  });
});

describe("writePrdStories without a cache, for stories without passes or notes", () => {
  it("writes what jsonc-parser's edits would, in one pass of the file, batch after batch, with or without its cache", () => {
    const stories = Array.from({ length: 60 }, (_, i) => ({
      id: `S${i}`,
      title: `Story ${i}`,
      ...(i % 3 === 0 ? {} : { passes: false }),
      ...(i % 2 ? { notes: i % 4 === 1 ? "earlier" : "" } : {}),
      mavenSteps: [1, 2],
    }));
    const text = `${JSON.stringify({ project: "P", userStories: stories }, null, 2)}\n`;
    const cached = file(text);
    const fresh = file(text);
    const cache: WriteBackCache = {};
    let expected = text;
    for (const batch of [[5, 0, 9], [1], [2, 3, 4, 6, 7, 8], Array.from({ length: 50 }, (_, k) => k + 10)]) {
      const marks = batch.map((i) => ({ storyId: `S${i}`, note: `run ${i}` }));
      writeStoriesPassed(cached, marks, cache);
      writeStoriesPassed(fresh, marks);
      expected = withJsoncEdits(expected, marks);
      expect(readFileSync(cached, "utf8")).toBe(expected);
      expect(readFileSync(fresh, "utf8")).toBe(expected);
    }
    // Marked again with the same notes: nothing to write.
    expect(writeStoriesPassed(fresh, [{ storyId: "S0", note: "run 0" }])).toEqual({ changed: 0, foreign: false });
  });
});

describe("writePrdStories, other edits and other files", () => {
  it("resets stories with and without passes or notes as jsonc-parser's edits would, in one pass", () => {
    const stories = Array.from({ length: 40 }, (_, i) => ({
      id: `S${i}`,
      title: `Story ${i}`,
      ...(i % 3 === 0 ? {} : { passes: i % 2 === 0 }),
      ...(i % 4 === 0 ? {} : { notes: i % 5 ? "Passed in run r1." : "" }),
      mavenSteps: [1],
    }));
    const text = `${JSON.stringify({ project: "P", userStories: stories }, null, 2)}\n`;
    const path = file(text);
    const reset = stories.map((story, index) => ({ storyId: story.id, index, passes: false, notes: () => "" }));
    expect(writePrdStories(path, reset).changed.length).toBeGreaterThan(0);
    const { applyEdits, modify } = jsoncParser();
    const formattingOptions = { insertSpaces: true, tabSize: 2, eol: "\n" };
    let expected = text;
    stories.forEach((story, index) => {
      if ((story as { passes?: boolean }).passes !== false)
        expected = applyEdits(
          expected,
          modify(expected, ["userStories", index, "passes"], false, { formattingOptions }),
        );
      if ((story as { notes?: string }).notes !== "")
        expected = applyEdits(expected, modify(expected, ["userStories", index, "notes"], "", { formattingOptions }));
    });
    expect(readFileSync(path, "utf8")).toBe(expected);
  });

  it("edits a PRD with comments and trailing commas with jsonc-parser, keeping them", () => {
    const text =
      '{\n  // the team\'s PRD\n  "userStories": [\n    {"id": "A", "passes": false, "notes": ""},\n  ],\n}\n';
    const path = file(text);
    expect(writeStoriesPassed(path, [{ storyId: "A", note: "n" }])).toEqual({ changed: 1, foreign: false });
    expect(readFileSync(path, "utf8")).toBe(
      text.replace('"passes": false, "notes": ""', '"passes": true, "notes": "n"'),
    );
  });

  it("leaves a story edited back within one write as it is, and says nothing changed", () => {
    const path = file(`${JSON.stringify({ userStories: [story(0), story(1)] }, null, 2)}\n`);
    const before = statSync(path).ino;
    const edits = [
      { storyId: "S0", passes: true, notes: (n: string) => n },
      { storyId: "S0", index: 0, passes: false, notes: (n: string) => n },
    ];
    expect(writePrdStories(path, edits)).toEqual({ changed: [], gone: [], foreign: false });
    expect(statSync(path).ino).toBe(before);
  });

  it("writes the stories it finds and names those that are gone", () => {
    const path = file(`${JSON.stringify({ userStories: [story(0), story(1)] }, null, 2)}\n`);
    const edits = ["S1", "S9"].map((storyId) => ({ storyId, passes: true, notes: () => "done" }));
    expect(writePrdStories(path, edits)).toEqual({ changed: ["S1"], gone: ["S9"], foreign: false });
    expect(JSON.parse(readFileSync(path, "utf8")).userStories[1]).toMatchObject({ passes: true, notes: "done" });
  });
});
