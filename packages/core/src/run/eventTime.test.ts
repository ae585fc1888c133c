import { describe, expect, it } from "vitest";
import { eventTime } from "./eventTime.js";

describe("eventTime", () => {
  it("is the ISO time of now, to the millisecond", async () => {
    const before = Date.now();
    const first = eventTime();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = eventTime();
    const after = Date.now();
    for (const time of [first, second]) {
      expect(new Date(time).toISOString()).toBe(time);
      expect(Date.parse(time)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(time)).toBeLessThanOrEqual(after);
    }
    // Made again once the millisecond changed, not kept from the first call.
    expect(Date.parse(second)).toBeGreaterThan(Date.parse(first));
  });
});
