import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FLOW_BIN, flowEnv, runNode } from "../helpers/runFlow.js";

describe("flow reset", () => {
  it("names a few stories one by one and many by their count; --json lists them all", async () => {
    const dir = mkdtempSync(join(tmpdir(), "meshflow-reset-cli-"));
    const prd = join(dir, "prd.json");
    const story = (i: number) => ({ id: `S${i}`, title: `Story ${i}`, priority: i, passes: true, mavenSteps: [1] });
    writeFileSync(
      prd,
      `${JSON.stringify({ project: "P", userStories: Array.from({ length: 12 }, (_, i) => story(i + 1)) }, null, 2)}\n`,
    );
    const flow = (args: string[]) => runNode([FLOW_BIN, ...args], { cwd: dir, env: flowEnv() });

    const two = await flow(["reset", "prd.json", "--story", "S2", "S3"]);
    expect(two.code, two.stderr).toBe(0);
    expect(two.stdout).toContain("prd.json: reset S2, S3 (passes false, notes cleared)");
    const all = await flow(["reset", "prd.json"]);
    expect(all.stdout).toContain("prd.json: reset 12 stories (S1 … S12) (passes false, notes cleared)");
    const again = await flow(["reset", "prd.json", "--json"]);
    expect(JSON.parse(again.stdout)).toMatchObject({
      changed: false,
      reset: Array.from({ length: 12 }, (_, i) => `S${i + 1}`),
    });
    const stories = JSON.parse(readFileSync(prd, "utf8")).userStories;
    expect(stories.every((s: { passes: boolean; notes: string }) => s.passes === false && s.notes === "")).toBe(true);
  });
});
