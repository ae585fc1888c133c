import { describe, expect, it } from "vitest";
import { checkJsonLimits } from "./checkJsonLimits.js";

/** `{ a: [ { a: [ … ] } ] }`, `levels` objects and arrays deep, with `leaf` at the bottom. */
function nested(levels: number, leaf: unknown = 1): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = i % 2 ? { a: value } : [value];
  return value;
}

describe("checkJsonLimits", () => {
  it("accepts values within the limits, however wide", () => {
    expect(checkJsonLimits({ list: Array.from({ length: 10_000 }, (_, i) => ({ i })), text: "x" })).toBeUndefined();
    expect(checkJsonLimits(nested(63), { maxDepth: 64 })).toBeUndefined();
    expect(checkJsonLimits("plain")).toBeUndefined();
  });

  it("names the path of the first value nested too deep, after the caller's prefix, without recursion", () => {
    expect(checkJsonLimits({ ok: 1, deep: nested(3) }, { maxDepth: 3, prefix: ["calls", 0, "args"] })).toEqual({
      path: "$.calls[0].args.deep[0].a",
      message: "nested deeper than 3 levels (the limit of tool arguments)",
    });
    // An object met shallow first and too deep later is named where it is too deep.
    const shared = [1];
    expect(checkJsonLimits({ b: { c: { d: shared } }, a: shared }, { maxDepth: 3 })?.path).toBe("$.b.c.d");
    // Far deeper than any stack would take.
    expect(checkJsonLimits(nested(200_000))?.message).toBe(
      "nested deeper than 64 levels (the limit of tool arguments)",
    );
  });

  it("names the size of a value over the byte limit, counting multi-byte characters", () => {
    expect(checkJsonLimits({ text: "é".repeat(60) }, { maxBytes: 100, prefix: ["args"] })).toEqual({
      path: "$.args",
      message: "131 bytes of JSON, more than 100 (the limit of tool arguments)",
    });
  });
});
