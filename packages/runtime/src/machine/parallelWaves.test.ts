import { describe, expect, it } from "vitest";
import { parallelWaves } from "./parallelWaves.js";

describe("parallelWaves", () => {
  const ralph = Array.from({ length: 6 }, (_, i) => ({ id: `S${i + 1}`, priority: i + 1 }));

  it("runs a story per priority band one at a time by default", () => {
    expect(parallelWaves(ralph, 3)).toEqual([["S1"], ["S2"], ["S3"], ["S4"], ["S5"], ["S6"]]);
  });

  it("runs stories of different priorities together with the deps order", () => {
    expect(parallelWaves(ralph, 3, "deps")).toEqual([
      ["S1", "S2", "S3"],
      ["S4", "S5", "S6"],
    ]);
  });

  it("starts a story after the stories it dependsOn, and leaves skipped stories out", () => {
    const stories = [
      { id: "A", priority: 1 },
      { id: "B", priority: 2, skipped: true },
      { id: "C", priority: 3 },
      { id: "D", priority: 4, dependsOn: ["C"] },
      { id: "E", priority: 5 },
    ];
    expect(parallelWaves(stories, 4, "deps")).toEqual([
      ["A", "C"],
      ["D", "E"],
    ]);
  });
});
