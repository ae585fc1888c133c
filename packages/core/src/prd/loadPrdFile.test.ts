import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadRoutingTable } from "../routing/RoutingTable.js";
import { loadPrdFile } from "./loadPrdFile.js";

const routing = loadRoutingTable();
const dir = mkdtempSync(join(tmpdir(), "meshflow-prd-"));

describe("loadPrdFile", () => {
  it("reports invalid JSON with line and column", async () => {
    const file = join(dir, "broken.json");
    writeFileSync(file, '{\n  "project": "P",\n  "userStories": [\n    { "id": "a" "title": "b" }\n  ]\n}\n');
    const loaded = await loadPrdFile(file, { routing });
    expect(loaded.prd).toBeUndefined();
    expect(loaded.problems).toEqual([
      {
        file,
        path: "$",
        message: "invalid JSON at line 4, column 17: expected ',' or a closing bracket",
        severity: "error",
      },
    ]);
  });

  it("reports trailing commas and empty files as invalid JSON", async () => {
    const trailing = join(dir, "trailing.json");
    writeFileSync(trailing, '{"project": "P", "userStories": [],}');
    expect((await loadPrdFile(trailing, { routing })).problems[0]?.message).toBe(
      "invalid JSON at line 1, column 36: expected a property name in double quotes",
    );
    const empty = join(dir, "empty.json");
    writeFileSync(empty, "");
    expect((await loadPrdFile(empty, { routing })).problems[0]?.message).toMatch(/^invalid JSON at line 1, column 1/);
  });

  it("throws file_not_found naming the file, and never creates it", async () => {
    const missing = join(dir, "missing.json");
    await expect(loadPrdFile(missing, { routing })).rejects.toMatchObject({
      code: "file_not_found",
      message: `${missing}: cannot read PRD: no such file`,
    });
  });

  it("keeps the exact text and does not touch the file", async () => {
    const file = join(dir, "ok.json");
    const text = '{"project":"P","userStories":[{"id":"a","title":"b","mavenSteps":[1],"priority":1,"passes":false}]}';
    writeFileSync(file, text);
    const loaded = await loadPrdFile(file, { routing });
    expect(loaded.problems).toEqual([]);
    expect(loaded.text).toBe(text);
    expect(readFileSync(file, "utf8")).toBe(text);
  });
});
