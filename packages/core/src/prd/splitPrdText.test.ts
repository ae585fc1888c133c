import { describe, expect, it } from "vitest";
import { splitPrdText } from "./splitPrdText.js";

describe("splitPrdText", () => {
  it("finds each story's text and leaves the PRD's own fields around an empty array", () => {
    const text = '{ "project": "P", "userStories": [ {"id": "a", "n": [1, {"x": "]"}]}, {"id": "b"} ], "z": 1 }';
    const parts = splitPrdText(text);
    expect(parts).toBeDefined();
    const spans = parts?.spans ?? [];
    const stories = [];
    for (let i = 0; i < spans.length; i += 2) stories.push(JSON.parse(text.slice(spans[i], spans[i + 1])));
    expect(stories).toEqual([{ id: "a", n: [1, { x: "]" }] }, { id: "b" }]);
    expect(JSON.parse(parts?.head ?? "")).toEqual({ project: "P", userStories: [], z: 1 });
  });

  it("keeps elements that are not objects, so the validator reports them at their index", () => {
    const text = '{"userStories": ["x", 3, null, ["y"]]}';
    const spans = splitPrdText(text)?.spans ?? [];
    const values = [];
    for (let i = 0; i < spans.length; i += 2) values.push(JSON.parse(text.slice(spans[i], spans[i + 1])));
    expect(values).toEqual(["x", 3, null, ["y"]]);
  });

  it("leaves to the whole parse what is not strict JSON shaped like a PRD", () => {
    expect(splitPrdText('{"userStories": [{"id": "a"},]}')).toBeUndefined(); // trailing comma
    expect(splitPrdText('{"userStories": [] // note\n}')).toBeUndefined(); // comment
    expect(splitPrdText('[{"id": "a"}]')).toBeUndefined(); // root is not an object
    expect(splitPrdText('{"userStories": {"id": "a"}}')).toBeUndefined(); // not an array
    expect(splitPrdText('{"project": "P"}')).toBeUndefined(); // no stories
    // JSON.parse keeps the last of two keys: the split could not tell which one a reader means.
    expect(splitPrdText('{"userStories": [{"id": "a"}], "userStories": []}')).toBeUndefined();
  });
});
