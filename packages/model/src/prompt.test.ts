import type { ModelTask } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { taskMessage } from "./prompt.js";

const task: ModelTask = {
  runId: "r1",
  storyId: "US-002",
  step: 5,
  specialist: "quality-agent",
  instructions: "check",
  stepPurpose: "tests",
  story: { id: "US-002", title: "Logout", description: "", acceptanceCriteria: [], notes: "" },
  earlier: [{ step: 1, specialist: "development-agent", status: "passed", summary: "wrote logout.ts" }],
  tools: [],
};

describe("taskMessage", () => {
  it("tells the model the run's memory: finished stories and learnings, newest first", () => {
    const text = taskMessage({
      ...task,
      finished: [{ prd: "prd-auth.json", storyId: "US-001", title: "Login", status: "passed", summary: "login works" }],
      learnings: [{ prd: "prd-auth.json", storyId: "US-001", text: "sessions live in src/auth" }],
    });
    expect(text).toContain("## Earlier steps of this story\n- step 1 (development-agent): passed: wrote logout.ts");
    expect(text).toContain("## Finished stories (newest first)\n- prd-auth.json US-001 Login: passed: login works");
    expect(text).toContain(
      "## Learnings from earlier stories (newest first)\n- prd-auth.json US-001: sessions live in src/auth",
    );
  });

  it("adds no memory sections when there is nothing to remember (recorded requests stay the same)", () => {
    const text = taskMessage({ ...task, finished: [], learnings: [] });
    expect(text).toBe(taskMessage(task));
    expect(text).not.toContain("Finished stories");
  });
});
