import { describe, expect, it } from "vitest";
import { describeDifference, type RequestParts } from "./RequestParts.js";

const parts: RequestParts = {
  system: "You are development-agent.\n\n## Step 1\nData layer",
  story: "# Story US-001: Login\n\nLogs in.\n\nDo step 1 of this story now.",
  memory: "## Finished stories (newest first)\n- prd.json US-000 Setup: passed: done",
  tools: [
    { name: "filesystem__read_file", digest: "a" },
    { name: "filesystem__write_file", digest: "b" },
  ],
};

describe("describeDifference", () => {
  it("names the first part that differs, with a short diff", () => {
    expect(describeDifference({ parts }, { parts: { ...parts, system: `${parts.system}!` } }, 1)).toBe(
      "in its system prompt:\n- Data layer\n+ Data layer!",
    );
    expect(
      describeDifference(
        { parts },
        { parts: { ...parts, story: parts.story.replace("Logs in.", "Logs in fast.") } },
        1,
      ),
    ).toBe("in its story:\n- Logs in.\n+ Logs in fast.");
    const tools = [
      { name: "filesystem__read_file", digest: "c" },
      { name: "memory__read_graph", digest: "d" },
    ];
    expect(describeDifference({ parts }, { parts: { ...parts, tools } }, 1)).toBe(
      "in its tools:\n+ offered now: memory__read_graph\n- offered then: filesystem__write_file\n~ description or schema changed: filesystem__read_file",
    );
    expect(describeDifference({ parts }, { parts: { ...parts, memory: "" } }, 1)).toMatch(
      /^in its memory:\n- ## Finished/,
    );
  });

  it("blames an earlier turn's results when the parts are the same; says nothing without recorded parts", () => {
    expect(
      describeDifference(
        { parts, results: [{ name: "filesystem__read_file", isError: true }] },
        { parts, results: [{ name: "filesystem__read_file", isError: false }] },
        3,
      ),
    ).toBe(
      "in an earlier turn (the results of turn 2's tool calls):\n- filesystem__read_file failed\n+ filesystem__read_file succeeded",
    );
    expect(describeDifference({}, { parts }, 1)).toBeUndefined();
  });
});
