import { describe, expect, it } from "vitest";
import { exposedToolName, MAX_TOOL_NAME_LENGTH } from "./exposedToolName.js";

describe("exposedToolName", () => {
  it("keeps a qualified name that is short and safe", () => {
    expect(exposedToolName("everything__echo")).toBe("everything__echo");
    expect(exposedToolName("everything__get-sum")).toBe("everything__get-sum");
  });

  it("shortens a long name to 64 characters with a hash of the whole name", () => {
    const long = `filesystem__${"read_every_file_in_the_tree_".repeat(4)}`;
    const name = exposedToolName(long);
    expect(name).toHaveLength(MAX_TOOL_NAME_LENGTH);
    expect(name.startsWith(`${long.slice(0, 55)}_`)).toBe(true);
    expect(name).toMatch(/_[0-9a-f]{8}$/);
    expect(exposedToolName(long)).toBe(name);
  });

  it("gives different names to long names that share their first 55 characters", () => {
    const prefix = `server__${"x".repeat(70)}`;
    const a = exposedToolName(`${prefix}_alpha`);
    const b = exposedToolName(`${prefix}_beta`);
    expect(a).not.toBe(b);
    expect(a.slice(0, 55)).toBe(b.slice(0, 55));
  });

  it("replaces characters clients reject and adds the hash so names cannot collide", () => {
    const dotted = exposedToolName("docs__search.v2");
    const underscored = exposedToolName("docs__search_v2");
    expect(dotted).toMatch(/^docs__search_v2_[0-9a-f]{8}$/);
    expect(underscored).toBe("docs__search_v2");
    expect(dotted).not.toBe(underscored);
    expect(exposedToolName("a b/c")).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});
