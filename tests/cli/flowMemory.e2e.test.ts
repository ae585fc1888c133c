import { describe, expect, it } from "vitest";
import { flowWorkspace } from "../helpers/flowWorkspace.js";
import { FLOW_BIN, flowEnv, ROOT, runNode } from "../helpers/runFlow.js";

describe("FLOW_MEMORY and FLOW_V8_FLAGS", () => {
  it("accepts lean and fast, and refuses anything else with exit 2 naming the values", async () => {
    for (const memory of ["lean", "fast"]) {
      const ok = await runNode([FLOW_BIN, "--version"], { cwd: ROOT, env: flowEnv({ FLOW_MEMORY: memory }) });
      expect(ok.code, ok.stderr).toBe(0);
    }
    const bad = await runNode([FLOW_BIN, "--version"], { cwd: ROOT, env: flowEnv({ FLOW_MEMORY: "huge" }) });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('FLOW_MEMORY must be "lean" or "fast", not "huge"');
  });

  it("FLOW_V8_FLAGS: a word that is no V8 flag is a usage error naming it; run and resume --help list both settings", async () => {
    const ws = flowWorkspace();
    ws.writePrd([
      {
        mcpTools: { step1: ["slow"] },
        calls: { step1: [{ tool: "slow__append_line", args: { file: "a.txt", line: "a" } }] },
      },
    ]);
    const bad = await ws.flow(["run", "prd.json"], { FLOW_V8_FLAGS: "--max-lazy interrupt-budget=1" });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('FLOW_V8_FLAGS: "interrupt-budget=1" is not a V8 flag (they start with --)');
    const ok = await ws.flow(["run", "prd.json"], { FLOW_V8_FLAGS: "--interrupt-budget=67584" });
    expect(ok.code, ok.stderr).toBe(0);
    for (const command of ["run", "resume"]) {
      const help = await runNode([FLOW_BIN, command, "--help"], { cwd: ROOT, env: flowEnv() });
      expect(help.stdout).toContain("FLOW_MEMORY");
      expect(help.stdout).toContain("FLOW_V8_FLAGS");
    }
  });
});
