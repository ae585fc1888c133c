import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  confirmedCall,
  dataOf,
  type GatewayFixture,
  gatewayFixture,
  type ServeClient,
  serveStdioClient,
  until,
} from "../helpers/flowServe.js";
import { FIXTURE_AGENTS, testStories } from "../helpers/flowWorkspace.js";

let fx: GatewayFixture;
let s: ServeClient;

function writePrd(name: string, stories: Array<Record<string, unknown>>): string {
  const userStories = testStories(stories);
  writeFileSync(
    join(fx.dir, name),
    `${JSON.stringify({ project: "Guard", branchName: "flow/g", userStories }, null, 2)}\n`,
  );
  return name;
}

const echoes = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ tool: "everything__echo", args: { message: `m${i}` } }));

/** Calls a destructive tool the way a client that does not read annotations must: token first. */
const confirmed = (name: string, args: Record<string, unknown> = {}) => confirmedCall(s, name, args);

async function finished(runId: string): Promise<Record<string, unknown>> {
  let status: Record<string, unknown> = {};
  await until(async () => {
    status = dataOf(await s.call("flow_run_status", { runId }));
    return status.status !== "running" && status.status !== "preflight";
  });
  return status;
}

beforeAll(async () => {
  fx = gatewayFixture();
  s = await serveStdioClient(["--calls-per-minute", "6"], {
    cwd: fx.dir,
    clientName: "cline",
    env: { FLOW_AGENTS: FIXTURE_AGENTS, FLOW_HOME: join(fx.dir, ".flow") },
  });
});
afterAll(async () => {
  await s?.close();
  fx?.cleanup();
});

describe("flow serve: one guard for clients and runs", () => {
  it("a run's calls count against --calls-per-minute; flow_diagnose shows the lock and flow_emergency_unlock clears it", async () => {
    // Regression: the runs' tool plane built a guard of its own (120 a minute) that locked for good,
    // while flow_diagnose reported the gateway's guard, unlocked, and unlock released nothing.
    // 2 calls of flow_run_prd (refused without token, then confirmed) + 4 echoes reach the limit of 6.
    const started = await confirmed("flow_run_prd", {
      prd: writePrd("many.json", [{ mcpTools: { step1: ["everything"] }, calls: { step1: echoes(5) } }]),
    });
    const runId = dataOf(started).runId as string;
    // The lock pauses the run: it stops where it was (aborted, resumable), no story failed.
    const status = await finished(runId);
    expect(status.status).toBe("aborted");
    expect(status.paused).toMatchObject({ code: "rate_limit_exceeded" });
    expect(JSON.stringify(status)).toContain("--calls-per-minute");
    expect(status.counts).toMatchObject({ failed: 0, blocked: 0 });
    const diagnosis = dataOf(await s.call("flow_diagnose", { verbose: false }));
    expect(diagnosis.guard).toMatchObject({ locked: true, callsPerMinuteThreshold: 6 });
    expect((diagnosis.guard as { lockReason: string }).lockReason).toContain("more than 6 calls");

    expect(dataOf(await confirmed("flow_emergency_unlock")).locked).toBe(false);
    expect(dataOf(await s.call("flow_diagnose", { verbose: false })).guard).toMatchObject({ locked: false });
    const again = await confirmed("flow_run_prd", {
      prd: writePrd("one.json", [{ mcpTools: { step1: ["everything"] }, calls: { step1: echoes(1) } }]),
    });
    expect((await finished(dataOf(again).runId as string)).status).toBe("passed");
  });
});
