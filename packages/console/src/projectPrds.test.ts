import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listProjectPrds, projectPrd } from "./projectPrds.js";

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

describe("listProjectPrds", () => {
  it("lists the project's PRDs, not dependencies, hidden folders, other JSON or anything through a link", () => {
    const root = project();
    expect(listProjectPrds(root).map((p) => [p.path, p.stories, p.storyCount])).toEqual([
      ["prd/examples/b.json", ["X"], 1],
      ["prd.json", ["US-1", "US-2"], 2],
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
