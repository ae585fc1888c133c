import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { flowWorkspace, testStories } from "../helpers/flowWorkspace.js";

/** A PRD whose one story has `field` holding `{"a":{"a":…1}}`, `depth` levels: written as text, no serializer could. */
function deepPrdText(field: string, depth: number): string {
  const [story] = testStories([{ mcpTools: { step1: ["everything"] } }]);
  const text = JSON.stringify({ project: "P", branchName: "b", userStories: [story] });
  return text.replace(
    '"notes":""',
    `"notes":"",${JSON.stringify(field)}:${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`,
  );
}

describe("a PRD nested 10,000 deep", () => {
  // Regression: flow validate passed such a story (nothing walked it recursively there) and flow run
  // died with "Maximum call stack size exceeded" in the run's canonical digest of the story.
  it("flow validate and flow run refuse it as an invalid PRD naming the JSON path; nothing runs", async () => {
    const ws = flowWorkspace();
    writeFileSync(ws.prd, deepPrdText("extra", 10_000));
    const before = readFileSync(ws.prd, "utf8");
    for (const command of ["validate", "run"]) {
      const result = await ws.flow([command, "prd.json"]);
      const out = result.stdout + result.stderr;
      expect(out, command).not.toContain("Maximum call stack");
      expect(result.code, command).toBe(1);
      expect(out, command).toMatch(
        /\$\.userStories\[0\]\.extra(\.a)+: nested deeper than 100 levels \(the limit of a PRD\)/,
      );
    }
    expect(readFileSync(ws.prd, "utf8")).toBe(before);
  });

  it("a PRD's own field nested that deep is refused the same way", async () => {
    const ws = flowWorkspace();
    const text = deepPrdText("extra", 1).replace(
      '{"project":"P"',
      `{"deep":${"[".repeat(10_000)}${"]".repeat(10_000)},"project":"P"`,
    );
    writeFileSync(ws.prd, text);
    const result = await ws.flow(["validate", "prd.json"]);
    expect(result.stdout + result.stderr).not.toContain("Maximum call stack");
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toMatch(/\$\.deep(\[0\])+: nested deeper than 100 levels/);
  });
});
