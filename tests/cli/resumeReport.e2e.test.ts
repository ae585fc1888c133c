import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { dataOf, type ServeClient, serveStdioClient } from "../helpers/flowServe.js";
import { FIXTURE_AGENTS, type FlowWorkspace, flowWorkspace } from "../helpers/flowWorkspace.js";

// A run stopped by Ctrl-C in the middle of a step, then `flow resume`d: the step starts again. Every
// report of the run (flow status, the gateway's flow_run_status) must show that step once, passed.

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 20));
}

/** Runs the PRD, interrupts it during step 1's first call, resumes it to the end; returns the run id. */
async function interruptedThenResumed(ws: FlowWorkspace, runId: string): Promise<void> {
  ws.writePrd([
    {
      mavenSteps: [1, 7],
      mcpTools: { step1: ["slow"], step7: ["slow"] },
      calls: {
        step1: [
          { tool: "slow__wait_for", args: { file: "release" } },
          { tool: "slow__append_line", args: { file: "log.txt", line: "after" } },
        ],
        step7: [{ tool: "slow__append_line", args: { file: "log.txt", line: "step 7" } }],
      },
    },
  ]);
  const run = ws.spawnFlow(["run", "prd.json", "--json", "--run-id", runId], { detached: true });
  await run.next((e) => e.type === "tool.called" && e.tool === "slow__wait_for");
  process.kill(-(run.child.pid ?? 0), "SIGINT");
  await until(() => run.stderr().includes("stopping"));
  writeFileSync(join(ws.files, "release"), "");
  expect(await run.exit).toBe(130);
  const resumed = await ws.flow(["resume", runId, "--json"]);
  expect(resumed.code, resumed.stderr).toBe(0);
}

const expectedSteps = [
  expect.objectContaining({ step: 1, status: "passed" }),
  expect.objectContaining({ step: 7, status: "passed" }),
];

let gateway: ServeClient | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

describe("the report of a resumed run", () => {
  it("shows each step once, in flow status --json and in the gateway's flow_run_status", async () => {
    // Regression: flow_run_status built its own report and pushed a step again when it restarted, so
    // after a resume it listed step 1 twice, the interrupted attempt stuck on `running`.
    const ws = flowWorkspace();
    await interruptedThenResumed(ws, "rep1");

    const status = await ws.flow(["status", "rep1", "--json"]);
    expect(status.code, status.stderr).toBe(0);
    const local = JSON.parse(status.stdout) as { run: { status: string }; stories: Array<{ steps: unknown[] }> };
    expect(local.run.status).toBe("passed");
    expect(local.stories).toEqual([expect.objectContaining({ id: "US-001", status: "passed", steps: expectedSteps })]);

    gateway = await serveStdioClient([], {
      cwd: ws.dir,
      clientName: "cline",
      env: { FLOW_AGENTS: FIXTURE_AGENTS, FLOW_SKILLS: join(ws.dir, "no-skills"), FLOW_HOME: join(ws.dir, ".flow") },
    });
    const served = dataOf(await gateway.call("flow_run_status", { runId: "rep1" }));
    expect(served.status).toBe("passed");
    expect(served.stories).toEqual([expect.objectContaining({ id: "US-001", status: "passed", steps: expectedSteps })]);
    // One report, one shape: the gateway's stories are flow status's, plus their refusals by step.
    expect((served.stories as Array<{ steps: unknown }>)[0]?.steps).toEqual(local.stories[0]?.steps);
  });
});
