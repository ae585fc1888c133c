import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lockPrd } from "../store/lockPrd.js";
import { resetStories } from "./resetStories.js";

function prdFile(text: string): { file: string; store: string } {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-reset-"));
  const file = join(dir, "prd.json");
  writeFileSync(file, text, { mode: 0o640 });
  return { file, store: join(dir, ".flow") };
}

const TEXT =
  '{\r\n\t"project": "P",\r\n\t"userStories": [\r\n\t\t{"zeta": 1, "id": "A", "passes": true, "notes": "Passed in run r1."},\r\n' +
  '\t\t{"id": "B", "passes": true, "notes": "kept", "x": {"passes": true}}\r\n\t],\r\n\t"trailer": "é ✓"\r\n}\r\n';

describe("resetStories", () => {
  it("resets a story without an id too, and keeps a PRD on one line on one line", () => {
    // A story without an id is reset too (the PRD is then parsed whole).
    const noId = prdFile(JSON.stringify({ userStories: [{ id: "A", passes: true, notes: "n" }, { passes: true }] }));
    expect(resetStories(noId.file, undefined, noId.store)).toEqual({ reset: ["A", ""], changed: true });
    expect(JSON.parse(readFileSync(noId.file, "utf8")).userStories).toEqual([
      { id: "A", passes: false, notes: "" },
      { passes: false, notes: "" },
    ]);
    // A PRD on one line stays on one line.
    const line = prdFile(
      JSON.stringify({
        userStories: [
          { id: "A", passes: true },
          { id: "B", notes: "n" },
        ],
      }),
    );
    resetStories(line.file, undefined, line.store);
    expect(readFileSync(line.file, "utf8")).toBe(
      JSON.stringify({
        userStories: [
          { id: "A", passes: false, notes: "" },
          { id: "B", notes: "", passes: false },
        ],
      }),
    );
  });

  it("sets passes false and clears notes of the chosen stories, every other byte and the mode kept", () => {
    const { file, store } = prdFile(TEXT);
    expect(resetStories(file, ["A"], store)).toEqual({ reset: ["A"], changed: true });
    expect(readFileSync(file, "utf8")).toBe(
      TEXT.replace('"passes": true, "notes": "Passed in run r1."', '"passes": false, "notes": ""'),
    );
    expect(statSync(file).mode & 0o777).toBe(0o640);
  });

  it("resets every story by default and is idempotent", () => {
    const { file, store } = prdFile(TEXT);
    expect(resetStories(file, undefined, store)).toEqual({ reset: ["A", "B"], changed: true });
    const once = readFileSync(file, "utf8");
    expect(JSON.parse(once).userStories.map((s: { passes: boolean; notes: string }) => [s.passes, s.notes])).toEqual([
      [false, ""],
      [false, ""],
    ]);
    expect(once).toContain('"x": {"passes": true}');
    expect(resetStories(file, undefined, store)).toEqual({ reset: ["A", "B"], changed: false });
    expect(readFileSync(file, "utf8")).toBe(once);
  });

  it("names an unknown story and writes nothing", () => {
    const { file, store } = prdFile(TEXT);
    expect(() => resetStories(file, ["C"], store)).toThrow(/no story "C" in userStories \(stories: A, B\)/);
    expect(readFileSync(file, "utf8")).toBe(TEXT);
  });

  it("refuses with prd_busy while a run holds the PRD's lock", () => {
    const { file, store } = prdFile(TEXT);
    const release = lockPrd(file, "run-1", store);
    try {
      expect(() => resetStories(file, undefined, store)).toThrow(expect.objectContaining({ code: "prd_busy" }));
    } finally {
      release();
    }
    expect(readFileSync(file, "utf8")).toBe(TEXT);
  });
});
