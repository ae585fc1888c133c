import { describe, expect, it } from "vitest";
import { MANY_UNTRACKED, manyUntracked } from "./manyUntracked.js";

const untracked = (paths: string[]) => new Map(paths.map((p) => [p, "?? 0123456789abcdef"]));

describe("manyUntracked", () => {
  it("says nothing below the bound, and counts only untracked files", () => {
    const few = untracked(Array.from({ length: MANY_UNTRACKED - 1 }, (_, i) => `vendor/f${i}`));
    expect(manyUntracked(few)).toBeUndefined();
    // Changed tracked files are the stories' work, not clutter.
    const changed = new Map(Array.from({ length: MANY_UNTRACKED }, (_, i) => [`src/f${i}.ts`, " M 0123"]));
    expect(manyUntracked(changed)).toBeUndefined();
  });

  it("names the three folders holding most of them, most first", () => {
    const paths = [
      ...Array.from({ length: 700 }, (_, i) => `node_modules/a/f${i}`),
      ...Array.from({ length: 200 }, (_, i) => `dist/f${i}`),
      ...Array.from({ length: 60 }, (_, i) => `coverage/f${i}`),
      ...Array.from({ length: 30 }, (_, i) => `tmp/f${i}`),
      ...Array.from({ length: 10 }, (_, i) => `loose-${i}.log`),
    ];
    expect(manyUntracked(untracked(paths))).toMatch(
      /^1,000 files git neither tracks nor ignores \(700 under node_modules\/, 200 under dist\/, 60 under coverage\/\): /,
    );
  });

  it("names a folder on one line, without the control characters its name may hold", () => {
    const paths = Array.from({ length: MANY_UNTRACKED }, (_, i) => `evil\u001b[2J\nname/f${i}`);
    expect(manyUntracked(untracked(paths))).toContain("(1,000 under evil [2J name/)");
  });
});
