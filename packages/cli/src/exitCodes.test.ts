import { describe, expect, it } from "vitest";
import { EXIT, exitCodeFor } from "./exitCodes.js";

describe("exitCodeFor", () => {
  it("makes a refused input or an oversized answer the work's failure (1), not a usage or environment error", () => {
    for (const code of [
      "prd_invalid",
      "prd_too_large",
      "invalid_arguments",
      "invalid_pattern",
      "result_too_large",
    ] as const)
      expect(exitCodeFor(code), code).toBe(EXIT.failure);
  });

  it("keeps usage (2) and environment (3) errors apart", () => {
    expect(exitCodeFor("usage")).toBe(EXIT.usage);
    expect(exitCodeFor("file_not_found")).toBe(EXIT.usage);
    expect(exitCodeFor("server_unreachable")).toBe(EXIT.environment);
    expect(exitCodeFor("redis_unavailable")).toBe(EXIT.environment);
  });
});
