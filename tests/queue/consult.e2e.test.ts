import { readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { describe, expect, inject, it, onTestFinished } from "vitest";
import { startFlowWorker } from "../helpers/flowWorker.js";
import { flowWorkspace, parseEvents } from "../helpers/flowWorkspace.js";
import { queuedStatus } from "../helpers/queuedRuns.js";
import { ROOT } from "../helpers/runFlow.js";

// ctx.consult in a queued run: `flow enqueue` of a PRD whose development step consults the shipped
// security-agent, run by a real `flow worker` on a real redis-server.

const MESH_AGENTS = [join(ROOT, "tests/fixtures/agents-mesh"), join(ROOT, "agents/security-agent")].join(delimiter);
const MESH_ENV = { FLOW_AGENTS: MESH_AGENTS, FLOW_SKILLS: join(ROOT, "skills") };

describe("ctx.consult in a queued run", () => {
  it("the worker runs the consultation: a planted secret fails the step, the event log and status say who asked whom", async () => {
    const prefix = `consult-${process.pid}-${Date.now()}:`;
    const url = inject("redisUrl");
    const ws = flowWorkspace({ agents: MESH_AGENTS, env: { FLOW_SKILLS: MESH_ENV.FLOW_SKILLS } });
    writeFileSync(join(ws.files, "config.js"), 'export const key = "AKIAIOSFODNN7EXAMPLE";\n');
    ws.writePrd([
      {
        mavenSteps: [1],
        mcpTools: { step1: ["filesystem"] },
        agentConfig: { "development-agent": { ask: ["security-agent"] } },
      },
    ]);
    const worker = await startFlowWorker(ws, url, ["--redis-prefix", prefix], MESH_ENV);
    onTestFinished(() => worker.stop("SIGTERM").then(() => undefined));
    const result = await ws.flow(["enqueue", "prd.json", "--wait", "--redis", url, "--redis-prefix", prefix]);
    expect(result.code, result.stderr).toBe(1);
    const runId = /^queued (\S+)/.exec(result.stdout)?.[1] ?? "";
    const { run, stories } = await queuedStatus(ws, url, runId, prefix);
    expect(run).toMatchObject({ status: "failed", counts: { passed: 0, failed: 1 } });
    expect(stories[0]?.summary).toContain("security-agent failed");

    // `flow status` of the run on the worker's machine (its store, in the same folder here) lists the
    // consultation under its step; the events say who asked whom, and whose calls are whose.
    const status = await ws.flow(["status", runId, "--json"]);
    expect(status.code, status.stderr).toBe(0);
    const step = (JSON.parse(status.stdout) as { stories: Array<{ steps: Array<{ consults?: unknown[] }> }> })
      .stories[0]?.steps[0];
    expect(step?.consults).toEqual([
      expect.objectContaining({ specialist: "security-agent", by: "development-agent", depth: 1, status: "failed" }),
    ]);
    const events = parseEvents(readFileSync(join(ws.dir, ".flow/runs", runId, "events.ndjson"), "utf8"));
    const started = events.filter((e) => e.type === "consult.started");
    expect(started).toEqual([
      expect.objectContaining({ specialist: "security-agent", by: "development-agent", depth: 1 }),
    ]);
    const consult = (started[0] as { consult?: string } | undefined)?.consult;
    expect(events.find((e) => e.type === "consult.done")).toMatchObject({ consult, status: "failed" });
    const calls = events.filter((e) => e.type === "tool.called");
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) expect(call).toMatchObject({ consult });
    expect(JSON.stringify(events)).not.toContain("AKIAIOSFODNN7EXAMPLE");
  }, 60_000);
});
