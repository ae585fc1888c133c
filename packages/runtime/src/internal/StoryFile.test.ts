import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Story } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { StoryFile } from "./StoryFile.js";

const story = (i: number): Story => ({
  id: `US-${i}`,
  title: `Story ${i} — “quoted” ✓`,
  description: "x".repeat(i % 7),
  acceptanceCriteria: [],
  mavenSteps: [1],
  mcpTools: {},
  priority: i,
  passes: false,
  notes: "",
});

describe("StoryFile", () => {
  it("reads back every story as it was appended, in any order, across batched writes", () => {
    const file = new StoryFile();
    try {
      const positions = Array.from({ length: 3000 }, (_, i) => file.append(story(i)));
      for (const i of [2999, 0, 1500, 7, 2999, 0]) expect(file.read(positions[i] ?? -1)).toEqual(story(i));
    } finally {
      file.close();
    }
  });

  it("reads stories appended after an earlier read, and a story larger than one read-ahead block", () => {
    const file = new StoryFile();
    try {
      const first = file.append(story(1));
      expect(file.read(first)).toEqual(story(1));
      const big = { ...story(2), description: "é".repeat(100_000) };
      const second = file.append(big);
      const third = file.append(story(3));
      expect(file.read(third)).toEqual(story(3));
      expect(file.read(second)).toEqual(big);
    } finally {
      file.close();
    }
  });

  it("leaves nothing in its folder, even while open", () => {
    const dir = mkdtempSync(join(tmpdir(), "meshflow-storyfile-"));
    const file = new StoryFile(dir);
    file.append(story(1));
    expect(readdirSync(dir)).toEqual([]);
    expect(file.read(0).id).toBe("US-1");
    file.close();
    expect(() => file.read(0)).toThrow(/closed|no story/);
  });
});
