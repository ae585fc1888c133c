import { describe, expect, it } from "vitest";
import { objectMembers } from "./storyText.js";

describe("objectMembers", () => {
  it("gives each top-level value's span, skipping strings, nesting and escapes", () => {
    const text = ' {\n "id" : "A\\"}", "n": {"passes": [1, "]"]}, "passes":false,"notes":"x\\\\", "k": -1.5e3 }\n';
    const members = objectMembers(text);
    const values = Object.fromEntries([...(members ?? [])].map(([k, [s, e]]) => [k, JSON.parse(text.slice(s, e))]));
    expect(values).toEqual(JSON.parse(text));
  });

  it("keeps the last of a repeated key, as JSON.parse does", () => {
    const text = '{"passes": false, "passes": true}';
    const [s, e] = objectMembers(text)?.get("passes") ?? [0, 0];
    expect(text.slice(s, e)).toBe("true");
    expect(objectMembers("{}")).toEqual(new Map());
  });

  it("is undefined for a text that is not shaped like one object", () => {
    for (const text of ["[1]", '{"a" 1}', '{"a": 1', '{"a": "open}', '{"a": 1 "b": 2}', "", '{"a": }'])
      expect(objectMembers(text), text).toBeUndefined();
  });
});
