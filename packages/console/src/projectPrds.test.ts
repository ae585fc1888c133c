import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_PRD_SEARCH, listProjectPrds, type PrdSearchBounds, projectPrd } from "./projectPrds.js";

const prd = (ids: string[]) => JSON.stringify({ project: "P", userStories: ids.map((id) => ({ id })) });

function project(): string {
  const root = mkdtempSync(join(tmpdir(), "meshflow-console-prds-"));
  writeFileSync(join(root, "prd.json"), prd(["US-1", "US-2"]));
  writeFileSync(join(root, "package.json"), "{}");
  mkdirSync(join(root, "prd", "examples"), { recursive: true });
  writeFileSync(join(root, "prd", "examples", "b.json"), prd(["X"]));
  mkdirSync(join(root, "node_modules", "x"), { recursive: true });
  writeFileSync(join(root, "node_modules", "x", "prd.json"), prd(["NM"]));
  mkdirSync(join(root, ".flow"));
  writeFileSync(join(root, ".flow", "p.json"), prd(["H"]));
  const outside = mkdtempSync(join(tmpdir(), "meshflow-console-outside-"));
  writeFileSync(join(outside, "o.json"), prd(["O"]));
  symlinkSync(outside, join(root, "linked"));
  symlinkSync(join(outside, "o.json"), join(root, "o.json"));
  return root;
}

/** A folder of PRD files `a0.json` … holding one story each, and `deep/1/2/3/4/5/deep.json`. */
function many(count: number): string {
  const root = mkdtempSync(join(tmpdir(), "meshflow-console-prds-"));
  for (let i = 0; i < count; i++) writeFileSync(join(root, `a${i}.json`), prd([`S-${i}`]));
  const deep = join(root, "deep", "1", "2", "3", "4", "5");
  mkdirSync(deep, { recursive: true });
  writeFileSync(join(deep, "deep.json"), prd(["D"]));
  return root;
}

const bounds = (given: Partial<PrdSearchBounds>): PrdSearchBounds => ({ ...DEFAULT_PRD_SEARCH, ...given });
const nothingSkipped = { prds: false, unread: false, tooLarge: 0, tooLargePaths: [], deeperFolders: 0 };

describe("listProjectPrds", () => {
  it("lists the project's PRDs, not dependencies, hidden folders, other JSON or anything through a link", () => {
    const root = project();
    const listing = listProjectPrds(root);
    expect(listing.prds.map((p) => [p.path, p.stories, p.storyCount])).toEqual([
      ["prd/examples/b.json", ["X"], 1],
      ["prd.json", ["US-1", "US-2"], 2],
    ]);
    expect(listing).toMatchObject({
      root,
      bounds: DEFAULT_PRD_SEARCH,
      read: 3,
      truncated: false,
      skipped: nothingSkipped,
    });
  });

  it("reads as flow run does: strict JSON with a userStories array, every element counted, only string ids listed", () => {
    const root = mkdtempSync(join(tmpdir(), "meshflow-console-prds-"));
    writeFileSync(join(root, "ids.json"), JSON.stringify({ userStories: [{ id: "A" }, {}, { id: 7 }, { id: "B" }] }));
    writeFileSync(join(root, "twice.json"), '{"userStories": [{"id": "A"}], "userStories": [{"id": "B"}]}');
    writeFileSync(join(root, "broken.json"), '{"userStories": [{"id": "A"},]}');
    writeFileSync(join(root, "object.json"), '{"userStories": {"id": "A"}}');
    expect(listProjectPrds(root).prds).toEqual([{ path: "ids.json", project: "", stories: ["A", "B"], storyCount: 4 }]);
  });

  it("looks --prd-depth folders deep and counts the folders it did not look into", () => {
    const root = many(1);
    const shallow = listProjectPrds(root, bounds({ depth: 5 }));
    expect(shallow.prds.map((p) => p.path)).toEqual(["a0.json"]);
    expect(shallow.skipped).toEqual({ ...nothingSkipped, deeperFolders: 1 });
    expect(shallow.truncated).toBe(true);
    const deep = listProjectPrds(root, bounds({ depth: 6 }));
    expect(deep.prds.map((p) => p.path)).toEqual(["a0.json", "deep/1/2/3/4/5/deep.json"]);
    expect(deep.truncated).toBe(false);
    const top = listProjectPrds(root, bounds({ depth: 0 }));
    expect(top.skipped.deeperFolders).toBe(1);
    expect(top.prds.map((p) => p.path)).toEqual(["a0.json"]);
  });

  it("lists at most maxPrds and says when there are more; exactly maxPrds is not cut", () => {
    const root = many(3);
    const cut = listProjectPrds(root, bounds({ maxPrds: 2, depth: 0 }));
    expect(cut.prds.map((p) => p.path)).toEqual(["a0.json", "a1.json"]);
    expect(cut.skipped).toEqual({ ...nothingSkipped, prds: true, deeperFolders: 0 });
    expect(cut.truncated).toBe(true);
    const whole = listProjectPrds(root, bounds({ maxPrds: 3, depth: 0 }));
    expect(whole.prds).toHaveLength(3);
    expect(whole.skipped.prds).toBe(false);
  });

  it("looks at most at maxRead files and says that files were left unread", () => {
    const root = many(3);
    const cut = listProjectPrds(root, bounds({ maxRead: 2, depth: 0 }));
    expect(cut.prds.map((p) => p.path)).toEqual(["a0.json", "a1.json"]);
    expect(cut).toMatchObject({ read: 2, truncated: true, skipped: { ...nothingSkipped, unread: true } });
    expect(listProjectPrds(root, bounds({ maxRead: 3, depth: 0 })).skipped.unread).toBe(false);
  });

  it("does not read a file over maxBytes and names it", () => {
    const root = many(2);
    writeFileSync(join(root, "a1.json"), prd(Array.from({ length: 100 }, (_, i) => `LONG-${i}`)));
    const cut = listProjectPrds(root, bounds({ maxBytes: 1_000, depth: 0 }));
    expect(cut.prds.map((p) => p.path)).toEqual(["a0.json"]);
    expect(cut).toMatchObject({
      truncated: true,
      skipped: { ...nothingSkipped, tooLarge: 1, tooLargePaths: ["a1.json"], deeperFolders: 1 },
    });
    expect(() => projectPrd(root, "a1.json", bounds({ maxBytes: 1_000 }))).toThrow(
      /is larger than 1000 bytes, the most the console reads of a PRD file; run flow run a1\.json from a terminal/,
    );
  });

  it("lists a PRD's first maxIds story ids and counts them all", () => {
    const root = mkdtempSync(join(tmpdir(), "meshflow-console-prds-"));
    writeFileSync(join(root, "prd.json"), prd(["A", "B", "C", "D"]));
    expect(listProjectPrds(root, bounds({ maxIds: 2 })).prds).toEqual([
      { path: "prd.json", project: "P", stories: ["A", "B"], storyCount: 4 },
    ]);
  });
});

describe("projectPrd", () => {
  it("takes a PRD of the project and refuses paths outside it, through a link, or not a PRD", () => {
    const root = project();
    expect(projectPrd(root, "prd/examples/b.json")).toBe(join(root, "prd", "examples", "b.json"));
    expect(() => projectPrd(root, "../x.json")).toThrow(/outside the project folder/);
    expect(() => projectPrd(root, join(root, "prd.json"))).toThrow(/relative to the project folder/);
    expect(() => projectPrd(root, "o.json")).toThrow(/symbolic link/);
    expect(() => projectPrd(root, "linked/o.json")).toThrow(/symbolic link/);
    expect(() => projectPrd(root, "package.json")).toThrow(/not a PRD/);
    expect(() => projectPrd(root, "missing.json")).toThrow(/no such file/);
  });
});
