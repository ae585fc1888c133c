import { describe, expect, it } from "vitest";
import { isRunId } from "./runId.js";

describe("isRunId", () => {
  it("takes letters, digits, dot, underscore and dash, up to 80, not starting with a symbol", () => {
    for (const id of ["20261125-074419-88f4", "q20261125-074012-c13aec", "a.b_c-d", "x".repeat(80)])
      expect(isRunId(id), id).toBe(true);
    for (const id of ["", ".hidden", "-x", "_x", "../r1", "a/b", "a b", "x".repeat(81)])
      expect(isRunId(id), id).toBe(false);
  });
});
