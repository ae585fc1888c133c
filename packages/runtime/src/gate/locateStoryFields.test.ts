import { describe, expect, it } from "vitest";
import { locateStories, locateStoryFields } from "./locateStoryFields.js";

describe("locateStoryFields", () => {
  it("finds passes and notes of every story, whatever else is around them", () => {
    const text = `{
  "project": "x \\"quoted\\" {[",
  "extra": {"userStories": "not these"},
  "userStories": [
    {"id": "A", "nested": {"passes": 1, "notes": [ ] }, "passes": false, "notes": "a \\\\"},
    {"notes": "", "id": "B", "passes": true},
    {"id": "C"},
    3
  ]
}`;
    const found = locateStoryFields(text);
    const slice = (span?: readonly [number, number]) => (span ? text.slice(span[0], span[1]) : undefined);
    expect(slice(found?.get("A")?.passes)).toBe("false");
    expect(slice(found?.get("A")?.notes)).toBe('"a \\\\"');
    expect(found?.get("A")?.notesValue).toBe("a \\");
    expect(slice(found?.get("B")?.passes)).toBe("true");
    expect(found?.get("B")?.notesValue).toBe("");
    expect(slice(found?.get("C")?.object)).toBe('{"id": "C"}');
    expect(found?.get("C")?.passes).toBeUndefined();
    expect(slice(found?.get("A")?.object)).toBe(
      '{"id": "A", "nested": {"passes": 1, "notes": [ ] }, "passes": false, "notes": "a \\\\"}',
    );
  });

  it("counts the userStories arrays and their elements, so a caller knows whether every story was found", () => {
    expect(locateStories('{"userStories": [{"id": "A"}, {"id": "B"}]}')).toMatchObject({ arrays: 1, elements: 2 });
    // No id, a repeated id, an element that is no object: more elements than stories found.
    const odd = locateStories('{"userStories": [{"id": "A"}, {"title": "x"}, {"id": "A"}, 3, [1]]}');
    expect(odd).toMatchObject({ arrays: 1, elements: 5 });
    expect([...(odd?.fields.keys() ?? [])]).toEqual(["A"]);
    expect(locateStories('{"userStories": [], "x": {"userStories": [{"id": "B"}]}, "userStories": []}')).toMatchObject({
      arrays: 2,
      elements: 0,
    });
    expect(locateStories('{"project": "P"}')).toMatchObject({ arrays: 0, elements: 0 });
  });

  it("returns undefined for text that is not JSON", () => {
    expect(locateStoryFields('{"userStories": [ {"id": "A", }')).toBeUndefined();
  });
});
