import { describe, expect, it } from "vitest";
import { retryAfterMs } from "./retryAfter.js";

describe("retryAfterMs", () => {
  it("reads retry-after-ms, else retry-after in seconds or as a date, else nothing", () => {
    expect(retryAfterMs({ "retry-after-ms": "1500", "retry-after": "9" })).toBe(1500);
    expect(retryAfterMs({ "Retry-After": "2" })).toBe(2000);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs({ "retry-after": "Thu, 01 Jan 2026 00:00:03 GMT" }, now)).toBe(3000);
    expect(retryAfterMs({ "retry-after": "soon" })).toBeUndefined();
    expect(retryAfterMs({ "retry-after": "-1" })).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});
