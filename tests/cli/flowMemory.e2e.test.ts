import { describe, expect, it } from "vitest";
import { FLOW_BIN, flowEnv, ROOT, runNode } from "../helpers/runFlow.js";

describe("FLOW_MEMORY", () => {
  it("accepts lean and fast, and refuses anything else with exit 2 naming the values", async () => {
    for (const memory of ["lean", "fast"]) {
      const ok = await runNode([FLOW_BIN, "--version"], { cwd: ROOT, env: flowEnv({ FLOW_MEMORY: memory }) });
      expect(ok.code, ok.stderr).toBe(0);
    }
    const bad = await runNode([FLOW_BIN, "--version"], { cwd: ROOT, env: flowEnv({ FLOW_MEMORY: "huge" }) });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('FLOW_MEMORY must be "lean" or "fast", not "huge"');
  });
});
