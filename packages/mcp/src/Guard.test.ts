import { describe, expect, it } from "vitest";
import { Guard } from "./Guard.js";
import type { MiddlewareEvent } from "./types.js";

describe("Guard", () => {
  it("refuses every guarded call while locked, with the reason, and admits again after unlock", () => {
    const guard = new Guard();
    guard.emergencyStop("operator pressed stop");
    expect(guard.check("a__b")).toEqual({ allowed: false, code: "guard_locked", reason: "operator pressed stop" });
    expect(guard.state()).toMatchObject({ locked: true, lockReason: "operator pressed stop" });
    guard.unlock();
    expect(guard.check("a__b")).toEqual({ allowed: true });
    expect(guard.state()).toMatchObject({ locked: false, lockReason: null, lockedAt: null });
  });

  it("locks itself when a call crosses the per-minute threshold", () => {
    const now = 0;
    const events: MiddlewareEvent[] = [];
    const guard = new Guard({ callsPerMinute: 3, clock: () => now, onEvent: (e) => events.push(e) });
    for (let i = 0; i < 3; i++) expect(guard.check("a__b").allowed).toBe(true);
    const fourth = guard.check("a__b");
    expect(fourth).toMatchObject({ allowed: false, code: "rate_limit_exceeded" });
    expect(guard.check("a__c")).toMatchObject({ allowed: false, code: "guard_locked" });
    expect(guard.state().locked).toBe(true);
    expect(events).toEqual([expect.objectContaining({ type: "guard.locked", automatic: true })]);
  });

  it("names the setting to change in a rate-limit refusal", () => {
    const flag = new Guard({ callsPerMinute: 1, clock: () => 0 });
    flag.check("t");
    expect(flag.check("t")).toMatchObject({ reason: expect.stringContaining("--calls-per-minute") });
    const own = new Guard({ callsPerMinute: 1, clock: () => 0, rateLimitHint: "set guard.callsPerMinute" });
    own.check("t");
    expect(own.check("t")).toMatchObject({ reason: expect.stringContaining("(set guard.callsPerMinute)") });
  });

  it("counts calls in a sliding 60 s window", () => {
    let now = 0;
    const guard = new Guard({ callsPerMinute: 2, clock: () => now });
    expect(guard.check("t").allowed).toBe(true);
    now = 30_000;
    expect(guard.check("t").allowed).toBe(true);
    now = 60_001; // the first call left the window
    expect(guard.check("t").allowed).toBe(true);
    expect(guard.state().callsInLastMinute).toBe(2);
    now = 60_002;
    expect(guard.check("t")).toMatchObject({ allowed: false, code: "rate_limit_exceeded" });
  });

  it("never locks a steady caller below the threshold, however long it runs", () => {
    let now = 0;
    const guard = new Guard({ callsPerMinute: 10, clock: () => now });
    for (let i = 0; i < 5000; i++) {
      now += 6_001; // ten calls fit in any 60 s window, an eleventh never does
      expect(guard.check("t").allowed).toBe(true);
    }
    expect(guard.state().callsInLastMinute).toBe(10);
  });

  it("lets unguarded tools through while locked, without counting them", () => {
    let now = 0;
    const guard = new Guard({ callsPerMinute: 1, unguardedTools: ["meshflow__diagnose"], clock: () => now });
    guard.emergencyStop("stop");
    expect(guard.check("meshflow__diagnose").allowed).toBe(true);
    expect(guard.check("fs__write").allowed).toBe(false);
    guard.unlock();
    now = 1;
    for (let i = 0; i < 5; i++) expect(guard.check("meshflow__diagnose").allowed).toBe(true);
    expect(guard.check("fs__write").allowed).toBe(true);
  });

  it("skips the rate limit when disabled, but an emergency stop still holds", () => {
    const guard = new Guard({ enabled: false, callsPerMinute: 1, clock: () => 0 });
    for (let i = 0; i < 10; i++) expect(guard.check("t").allowed).toBe(true);
    guard.emergencyStop("maintenance");
    expect(guard.check("t")).toMatchObject({ allowed: false, code: "guard_locked", reason: "maintenance" });
  });

  it("rejects a threshold that is not a positive integer", () => {
    expect(() => new Guard({ callsPerMinute: 0 })).toThrow(/positive integer/);
  });
});
