import { describe, expect, it } from "vitest";
import { formatJsonPath } from "./jsonPath.js";
import { positionAt } from "./parseJsonText.js";

describe("formatJsonPath", () => {
  it("writes identifiers with dots, indexes in brackets and other keys quoted", () => {
    expect(formatJsonPath([])).toBe("$");
    expect(formatJsonPath(["userStories", 2, "mcpTools", "step4"])).toBe("$.userStories[2].mcpTools.step4");
    expect(formatJsonPath(["mcpServers", "my-server", "env", "A B"])).toBe('$.mcpServers["my-server"].env["A B"]');
  });
});

describe("positionAt", () => {
  it("counts lines and columns from 1", () => {
    expect(positionAt("ab\ncd", 0)).toEqual({ line: 1, column: 1 });
    expect(positionAt("ab\ncd", 4)).toEqual({ line: 2, column: 2 });
  });
});
