import { describe, expect, it } from "vitest";
import { type StoryEdit, setStoryFields } from "./storyText.js";

const edit = (storyId: string, passes = true, note = "n"): StoryEdit => ({
  storyId,
  passes,
  notes: (current) => `${current}${note}`,
});

describe("setStoryFields", () => {
  it("replaces passes and notes where they are, keeping every other byte, strings, nesting and escapes", () => {
    const text = ' {\n "id" : "A\\"}", "n": {"passes": [1, "]"]}, "passes":false,"notes":"x\\\\", "k": -1.5e3 }\n';
    const out = setStoryFields(text, edit('A"}'));
    expect(out).toBe(text.replace('"passes":false,"notes":"x\\\\"', '"passes":true,"notes":"x\\\\n"'));
    expect(JSON.parse(out ?? "")).toEqual({ ...JSON.parse(text), passes: true, notes: "x\\n" });
  });

  it("edits the last of a repeated key, as JSON.parse reads it, and adds fields written as the first member is", () => {
    expect(setStoryFields('{"id": "A", "passes": false, "passes": false}', edit("A"))).toBe(
      '{"id": "A", "passes": false, "passes": true,"notes": "n"}',
    );
    // The first member's key repeated later: its own spacing is still what an added field copies.
    expect(setStoryFields('{\n  "id" : "B",\n  "id" : "A"\n}', edit("A"))).toBe(
      '{\n  "id" : "B",\n  "id" : "A",\n  "passes" : true,\n  "notes" : "n"\n}',
    );
  });

  it("is undefined for a text that is not one object, or another story", () => {
    for (const text of ["[1]", '{"a" 1}', '{"id": "A"', '{"id": "open}', '{"id": "A" "b": 2}', "", '{"id": }', "{}"])
      expect(setStoryFields(text, edit("A")), text).toBeUndefined();
    expect(setStoryFields('{"id": "B"}', edit("A"))).toBeUndefined();
  });

  it("keeps comments and trailing commas, and takes notes that are no string as none", () => {
    expect(setStoryFields('{ // first\n  "id": "A", /* c */ "passes": false,}', edit("A"))).toBe(
      '{ // first\n  "id": "A", /* c */ "passes": true,\n  "notes": "n",}',
    );
    expect(setStoryFields('{"id": "A", "notes": null}', edit("A"))).toBe('{"id": "A", "notes": "n","passes": true}');
  });
});
