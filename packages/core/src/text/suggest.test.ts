import { describe, expect, it } from "vitest";
import { didYouMean, suggest } from "./suggest.js";

describe("suggest", () => {
  it("finds close names, closest first, ignoring case", () => {
    expect(suggest("memroy", ["memory", "filesystem", "everything"])).toEqual(["memory"]);
    expect(suggest("FileSystem", ["filesystem", "files"])).toEqual(["filesystem", "files"]);
  });

  it("suggests nothing when nothing is close", () => {
    expect(suggest("github", ["memory", "filesystem"])).toEqual([]);
    expect(didYouMean("github", ["memory"])).toBe("");
  });

  it("phrases one or several suggestions", () => {
    expect(didYouMean("memroy", ["memory"])).toBe(' (did you mean "memory"?)');
    expect(didYouMean("fs", ["fs1", "fs2"])).toBe(' (did you mean "fs1" or "fs2"?)');
  });
});
