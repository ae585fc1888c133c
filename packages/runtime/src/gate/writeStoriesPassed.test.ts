import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeStoriesPassed } from "./writeStoriesPassed.js";

function file(text: string, mode = 0o640): string {
  const path = join(mkdtempSync(join(tmpdir(), "meshflow-prd-")), "prd.json");
  writeFileSync(path, text, { mode });
  return path;
}

describe("writeStoriesPassed", () => {
  it("changes only passes and notes, keeping tabs, CRLF, key order, unknown fields and the file mode", () => {
    const text =
      '{\r\n\t"userStories": [\r\n\t\t{"zeta": 1, "id": "A", "notes": "earlier", "passes": false, "x": {"passes": false}},\r\n' +
      '\t\t{"id": "B", "passes": false, "notes": ""}\r\n\t],\r\n\t"trailer": "é ✓"\r\n}\r\n';
    const path = file(text);
    expect(writeStoriesPassed(path, [{ storyId: "A", note: "Passed in run r1." }])).toEqual({
      changed: 1,
      foreign: false,
    });
    expect(readFileSync(path, "utf8")).toBe(
      text.replace('"notes": "earlier", "passes": false', '"notes": "earlier Passed in run r1.", "passes": true'),
    );
    expect(statSync(path).mode & 0o777).toBe(0o640);
  });

  it("is idempotent and inserts missing fields with the file's indentation", () => {
    const text = '{\n    "userStories": [\n        {\n            "id": "A"\n        }\n    ]\n}\n';
    const path = file(text);
    writeStoriesPassed(path, [{ storyId: "A", note: "n1" }]);
    const once = readFileSync(path, "utf8");
    expect(JSON.parse(once).userStories[0]).toEqual({ id: "A", passes: true, notes: "n1" });
    expect(once).toContain('\n            "passes": true');
    expect(writeStoriesPassed(path, [{ storyId: "A", note: "n1" }])).toEqual({ changed: 0, foreign: false });
    expect(readFileSync(path, "utf8")).toBe(once);
    // Set back to not passed by hand, its note kept: passed again, the note not repeated.
    writeFileSync(path, once.replace('"passes": true', '"passes": false'));
    writeStoriesPassed(path, [{ storyId: "A", note: "n1" }]);
    expect(readFileSync(path, "utf8")).toBe(once);
  });

  it("gives the same bytes when it reuses the located fields of its own last write", () => {
    const stories = Array.from({ length: 6 }, (_, i) => ({ id: `S${i}`, notes: i % 2 ? 'n"q' : "", passes: false }));
    const text = `${JSON.stringify({ userStories: stories }, null, 2)}\n`;
    const cached = file(text);
    const fresh = file(text);
    const cache = {};
    for (const batch of [["S1", "S4"], ["S0"], ["S5", "S2"], ["S3"]]) {
      const marks = batch.map((storyId) => ({ storyId, note: `run ${storyId} ✓` }));
      writeStoriesPassed(cached, marks, cache);
      writeStoriesPassed(fresh, marks);
      expect(readFileSync(cached, "utf8")).toBe(readFileSync(fresh, "utf8"));
    }
    expect(JSON.parse(readFileSync(cached, "utf8")).userStories.every((s: { passes: boolean }) => s.passes)).toBe(true);
  });

  it("refuses a story that is no longer in the PRD, leaving the file untouched", () => {
    const text = '{"userStories": [{"id": "A", "passes": false, "notes": ""}]}';
    const path = file(text);
    expect(() => writeStoriesPassed(path, [{ storyId: "Z", note: "n" }])).toThrow(/story "Z" is no longer/);
    expect(readFileSync(path, "utf8")).toBe(text);
  });
});
