import { describe, expect, it } from "vitest";
import { splitFrontMatter } from "./frontMatter.js";

describe("splitFrontMatter", () => {
  it("parses the YAML between the first two --- lines and returns the rest as the body", () => {
    expect(splitFrontMatter("---\nname: x\nlist:\n  - a\n  - b\n---\n# Title\n\nText\n")).toEqual({
      data: { name: "x", list: ["a", "b"] },
      body: "# Title\n\nText\n",
    });
  });

  it("keeps a --- inside the body, CRLF line ends and a byte-order mark", () => {
    expect(splitFrontMatter("\uFEFF---\r\nname: x\r\n---\r\nA\r\n---\r\nB")).toEqual({
      data: { name: "x" },
      body: "A\r\n---\r\nB",
    });
  });

  it("reads no front matter as {} and the whole text as the body", () => {
    expect(splitFrontMatter("# Just text\n---\nname: x\n---\n")).toEqual({
      data: {},
      body: "# Just text\n---\nname: x\n---\n",
    });
    expect(splitFrontMatter("---\n---\nBody")).toEqual({ data: {}, body: "Body" });
    expect(splitFrontMatter("---\nname: x\n---")).toEqual({ data: { name: "x" }, body: "" });
  });

  it("throws on front matter that is not YAML", () => {
    expect(() => splitFrontMatter("---\nname: [unclosed\n---\n")).toThrow();
  });
});
