import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isPrdFileName, listPrdFolder } from "./PrdFolder.js";

function folder(files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-prds-"));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), JSON.stringify(content));
  return dir;
}

const prd = (dependsOn?: string[]) => ({ project: "P", userStories: [], ...(dependsOn ? { dependsOn } : {}) });

describe("listPrdFolder", () => {
  it("takes prd-*.json and *.prd.json in name order, each after the PRDs it depends on", () => {
    const dir = folder({
      "prd-api.json": prd(["prd-auth.json"]),
      "prd-auth.json": prd(["billing.prd.json"]),
      "billing.prd.json": prd(),
      "prd-ui.json": prd(),
      "notes.json": { other: true },
    });
    expect(listPrdFolder(dir).map((p) => p.name)).toEqual([
      "billing.prd.json",
      "prd-auth.json",
      "prd-api.json",
      "prd-ui.json",
    ]);
  });

  it("names the file and JSON path of a dependency that is not a PRD of the folder", () => {
    const dir = folder({ "prd-api.json": prd(["prd-atuh.json"]), "prd-auth.json": prd() });
    expect(() => listPrdFolder(dir)).toThrow(
      /prd-api\.json: \$\.dependsOn\[0\]: "prd-atuh\.json" is not a PRD of .*did you mean "prd-auth\.json"/,
    );
  });

  it("refuses a dependency cycle, naming it", () => {
    const dir = folder({ "prd-a.json": prd(["prd-b.json"]), "prd-b.json": prd(["prd-a.json"]) });
    expect(() => listPrdFolder(dir)).toThrow(/dependency cycle prd-a\.json → prd-b\.json → prd-a\.json/);
  });
});

describe("isPrdFileName", () => {
  it("matches prd-*.json and *.prd.json only", () => {
    expect(["prd-a.json", "a.prd.json", "prd.json", ".prd.json", "prd-a.progress.md"].map(isPrdFileName)).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});
