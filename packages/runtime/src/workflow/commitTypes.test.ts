import { describe, expect, it } from "vitest";
import { commitType, DEFAULT_COMMIT_TYPE } from "./commitTypes.js";

describe("commitType", () => {
  it("is the type of the first step whose specialist has a row", () => {
    expect(commitType(["development-agent", "quality-agent"])).toBe("feat");
    expect(commitType(["refactor-agent"])).toBe("refactor");
    expect(commitType(["quality-agent"])).toBe("test");
    expect(commitType(["security-agent"])).toBe("security");
    expect(commitType(["design-agent"])).toBe("design");
    expect(commitType(["my-own-agent", "security-agent"])).toBe("security");
    expect(commitType(["my-own-agent"])).toBe(DEFAULT_COMMIT_TYPE);
  });
});
