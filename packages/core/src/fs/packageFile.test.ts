import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { packageFile } from "./packageFile.js";

describe("packageFile", () => {
  it("finds the nearest package.json above a module at any depth", () => {
    const root = mkdtempSync(join(tmpdir(), "meshflow-package-file-"));
    writeFileSync(join(root, "package.json"), "{}");
    mkdirSync(join(root, "dist", "bundle"), { recursive: true });
    for (const module of ["index.js", "dist/index.js", "dist/bundle/chunk.js"])
      expect(packageFile(pathToFileURL(join(root, module)), "data/x.yaml")).toBe(join(root, "data", "x.yaml"));
  });

  it("is this package's own folder for this module", () => {
    expect(packageFile(import.meta.url, "package.json")).toMatch(/packages[/\\]core[/\\]package\.json$/);
  });
});
