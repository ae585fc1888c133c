import { describe, expect, it } from "vitest";
import { canonicalJson, digestOf, sha256Hex } from "./canonicalJson.js";

describe("canonicalJson", () => {
  it("sorts keys at every level, keeps array order, drops undefined members", () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }, 1], u: undefined })).toBe('{"a":[{"c":3,"d":2},1],"b":1}');
    expect(canonicalJson({ at: new Date(0) })).toBe('{"at":"1970-01-01T00:00:00.000Z"}');
  });

  it("digests equal values equally whatever their key order, and undefined apart from null", () => {
    expect(digestOf({ x: 1, y: [2] })).toBe(digestOf({ y: [2], x: 1 }));
    expect(digestOf({ x: 1 })).toBe(`sha256:${sha256Hex('{"x":1}')}`);
    expect(digestOf(undefined)).not.toBe(digestOf(null));
  });
});
