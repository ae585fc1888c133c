import { describe, expect, it } from "vitest";
import { isConnectionError } from "./ConnectionWatch.js";

// The one-line-per-state-change behaviour is tested against a real redis-server and a real worker in
// tests/queue/redisOutage.e2e.test.ts.
describe("isConnectionError", () => {
  it("tells connection errors from errors Redis answered with", () => {
    expect(
      isConnectionError(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6379"), { code: "ECONNREFUSED" })),
    ).toBe(true);
    expect(isConnectionError(new Error("read ECONNRESET"))).toBe(true);
    expect(isConnectionError(new Error("Connection is closed."))).toBe(true);
    expect(isConnectionError(new Error("WRONGTYPE Operation against a key holding the wrong kind of value"))).toBe(
      false,
    );
  });
});
