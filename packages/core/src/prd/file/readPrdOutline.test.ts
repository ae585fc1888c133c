import { mkdtempSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readPrdOutline } from "./readPrdOutline.js";

const prd = (passes: boolean, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    project: "P",
    branchName: "flow/x",
    userStories: [
      { id: "A", priority: 2, passes, mcpTools: { step1: ["memory"] } },
      { id: "B", priority: 1, passes: false, mcpTools: { step1: ["filesystem", "memory"] } },
    ],
    git: { commit: true },
    ...extra,
  });

describe("readPrdOutline", () => {
  it("reads each story's outline and the PRD's own fields, also those after the stories", () => {
    const file = join(mkdtempSync(join(tmpdir(), "meshflow-outline-")), "prd.json");
    writeFileSync(file, prd(false, { dependsOn: ["prd-a.json"] }));
    expect(readPrdOutline(file)).toEqual({
      project: "P",
      dependsOn: ["prd-a.json"],
      branchName: "flow/x",
      commit: true,
      stories: [
        { id: "A", priority: 2, passes: false, servers: ["memory"] },
        { id: "B", priority: 1, passes: false, servers: ["filesystem", "memory"] },
      ],
    });
    expect(readPrdOutline(file, { stories: false })?.stories).toEqual([]);
  });

  it("reads a file again once it changed, and not before", () => {
    const dir = mkdtempSync(join(tmpdir(), "meshflow-outline-"));
    const file = join(dir, "prd.json");
    writeFileSync(file, prd(false));
    const first = readPrdOutline(file);
    expect(readPrdOutline(file)).toBe(first);
    // Saved by rename, as the run's write-back and most editors do: a new file.
    writeFileSync(join(dir, "next.json"), prd(true));
    renameSync(join(dir, "next.json"), file);
    expect(readPrdOutline(file)?.stories[0]?.passes).toBe(true);
  });

  it("is undefined for a file that is not JSON shaped like a PRD, or missing", () => {
    const file = join(mkdtempSync(join(tmpdir(), "meshflow-outline-")), "prd.json");
    writeFileSync(file, '{"userStories": [}');
    expect(readPrdOutline(file)).toBeUndefined();
    expect(readPrdOutline(join(file, "..", "missing.json"))).toBeUndefined();
  });

  it("refuses a dependsOn that is not an array of PRD file names, as a folder run does", () => {
    const file = join(mkdtempSync(join(tmpdir(), "meshflow-outline-")), "prd.json");
    writeFileSync(file, prd(false, { dependsOn: "prd-a.json" }));
    expect(() => readPrdOutline(file)).toThrow(`${file}: $.dependsOn: expected an array of PRD file names`);
  });
});
