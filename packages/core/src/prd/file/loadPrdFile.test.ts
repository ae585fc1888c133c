import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadRoutingTable } from "../../routing/RoutingTable.js";
import type { Story } from "../PrdSchema.js";
import { loadPrdFile, scanPrdFile } from "./loadPrdFile.js";

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

  it("reads a PRD one story at a time with the same stories and problems as the whole load", async () => {
    const file = join(dir, "scan.json");
    const story = (id: string, extra: Record<string, unknown> = {}) => ({
      id,
      title: `T ${id}`,
      mavenSteps: [1],
      priority: 1,
      ...extra,
    });
    const prds = [
      { project: "P", model: "openai:gpt-x", userStories: [story("a"), story("b", { notes: "n" })] },
      {
        project: "",
        userStories: [story("a"), story("a"), { id: 3 }, "x", story("c", { mavenSteps: [1, 1], mcpTools: { s9: [] } })],
      },
      { project: "P", userStories: "none" },
    ];
    for (const prd of prds) {
      writeFileSync(file, JSON.stringify(prd, null, 2));
      const whole = await loadPrdFile(file, { routing });
      const seen: Array<{ story: Story; index: number }> = [];
      const scan = await scanPrdFile(file, { routing }, (story, index) => seen.push({ story, index }));
      expect(scan.problems).toEqual(whole.problems);
      if (whole.prd) {
        const { userStories, ...head } = whole.prd;
        expect(scan.head).toEqual(head);
        expect(seen).toEqual(userStories.map((story, index) => ({ story, index })));
      } else expect(scan.problems.some((p) => p.severity === "error")).toBe(true);
    }
  });
});
