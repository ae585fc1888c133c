import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  codeOf,
  confirmedCall,
  dataOf,
  type GatewayFixture,
  gatewayFixture,
  type ServeClient,
  serveStdioClient,
  textOf,
  until,
} from "../helpers/flowServe.js";
import { FIXTURE_AGENTS, SLOW_SERVER, testStories } from "../helpers/flowWorkspace.js";
import { ROOT } from "../helpers/runFlow.js";

let fx: GatewayFixture;
let s: ServeClient;

function writePrd(name: string, stories: Array<Record<string, unknown>>): string {
  const userStories = testStories(stories);
  writeFileSync(
    join(fx.dir, name),
    `${JSON.stringify({ project: "Gateway", branchName: "flow/gw", userStories }, null, 2)}\n`,
  );
  return name;
}

/** Calls a destructive tool the way a client that does not read annotations must: token first. */
const confirmed = (name: string, args: Record<string, unknown> = {}) => confirmedCall(s, name, args);

async function statusOf(runId: string): Promise<Record<string, unknown>> {
  return dataOf(await s.call("flow_run_status", { runId }));
}

beforeAll(async () => {
  fx = gatewayFixture({ slow: { command: process.execPath, args: [SLOW_SERVER, "files"] } });
  s = await serveStdioClient(["--skills", join(ROOT, "skills")], {
    cwd: fx.dir,
    clientName: "cline",
    env: { FLOW_AGENTS: FIXTURE_AGENTS, FLOW_HOME: join(fx.dir, ".flow") },
  });
});
afterAll(async () => {
  await s?.close();
  fx?.cleanup();
});

describe("flow serve: meshflow's run tools", () => {
  it("are in core, annotated, and the default still fits in 40 tools", async () => {
    const { tools } = await s.client.listTools();
    expect(tools.length).toBeLessThanOrEqual(40);
    const run = tools.find((t) => t.name === "flow_run_prd");
    expect(run?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
    for (const name of ["flow_run_status", "flow_list_specialists", "flow_plan", "flow_coverage"])
      expect(tools.find((t) => t.name === name)?.annotations, name).toMatchObject({
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
      });
  });

  it("flow_list_specialists shows the loaded specialists and the routing", async () => {
    const result = dataOf(await s.call("flow_list_specialists"));
    const names = (result.specialists as { name: string }[]).map((x) => x.name);
    expect(names).toEqual(["development-agent", "quality-agent", "refactor-agent", "security-agent"]);
    expect(result.routing).toContainEqual({ step: 11, specialist: "design-agent", loaded: false });
    expect(result.routing).toContainEqual({ step: 1, specialist: "development-agent", loaded: true });
  });

  it("flow_plan dry-runs a PRD and names the problems of an invalid one", async () => {
    const prd = writePrd("plan.json", [
      {
        mcpTools: { step1: ["memory"] },
        calls: {
          step1: [
            { tool: "memory__read_graph", args: {} },
            { tool: "memory__no_such_tool", args: {} },
          ],
        },
      },
    ]);
    const plan = await s.call("flow_plan", { prd });
    expect(plan.isError).toBeFalsy();
    expect(dataOf(plan)).toMatchObject({ refusals: 1, blocked: [] });
    expect(textOf(plan)).toContain("US-001: 1→development-agent scripted");

    writeFileSync(join(fx.dir, "broken.json"), JSON.stringify({ project: "x", userStories: [{ id: 1 }] }));
    const invalid = await s.call("flow_plan", { prd: "broken.json" });
    expect(codeOf(invalid)).toBe("prd_invalid");
    expect(textOf(invalid)).toContain("broken.json: $.userStories[0]");
  });

  it("flow_run_prd starts a run in the background; flow_run_status follows it to the end", async () => {
    const prd = writePrd("run.json", [
      {
        mcpTools: { step1: ["memory"] },
        calls: {
          step1: [
            {
              tool: "memory__create_entities",
              args: { entities: [{ name: "via-gateway", entityType: "feature", observations: ["run over MCP"] }] },
            },
          ],
        },
      },
    ]);
    const started = await confirmed("flow_run_prd", { prd });
    expect(started.isError).toBeFalsy();
    const runId = dataOf(started).runId as string;
    expect(runId).toMatch(/^\d{8}-\d{6}-[0-9a-f]{4}$/);
    expect(await until(async () => (await statusOf(runId)).status === "passed")).toBe(true);
    const status = await statusOf(runId);
    expect(status).toMatchObject({ counts: { passed: 1, failed: 0, blocked: 0 } });
    expect(status.stories).toEqual([
      expect.objectContaining({
        id: "US-001",
        status: "passed",
        steps: [expect.objectContaining({ step: 1, status: "passed", calls: 1 })],
      }),
    ]);
    expect(readFileSync(join(fx.dir, prd), "utf8")).toContain('"passes": true');
    expect(readFileSync(join(fx.dir, "memory.jsonl"), "utf8")).toContain("via-gateway");
    const list = dataOf(await s.call("flow_run_status"));
    expect((list.runs as { runId: string }[]).map((r) => r.runId)).toContain(runId);
  });

  it("flow_run_prd refuses an invalid PRD with its problems, and files outside the working folder", async () => {
    const refused = await confirmed("flow_run_prd", { prd: "broken.json" });
    expect(codeOf(refused)).toBe("prd_invalid");
    expect(textOf(refused)).toContain("run refused:");
    const outside = await confirmed("flow_run_prd", { prd: "/etc/hostname" });
    expect(codeOf(outside)).toBe("usage");
    expect(textOf(outside)).toContain("PRD files must lie inside");
  });

  it("emergency stop stops a run in progress: nothing after the call in flight starts, the run is recorded as aborted", async () => {
    const prd = writePrd("slow.json", [
      {
        mcpTools: { step1: ["slow"] },
        calls: {
          step1: [
            { tool: "slow__wait_for", args: { file: "release" } },
            { tool: "slow__append_line", args: { file: "after.txt", line: "after the stop" } },
          ],
        },
      },
    ]);
    const started = await confirmed("flow_run_prd", { prd });
    const runId = dataOf(started).runId as string;
    expect(
      await until(async () => ((await statusOf(runId)).stories as { steps: unknown[] }[])[0]?.steps.length === 1),
    ).toBe(true);
    const stop = dataOf(await s.call("flow_emergency_stop", { reason: "stop the run" }));
    expect(stop.abortedRuns).toEqual([runId]);
    // The call in flight finishes (it is journaled); nothing after it starts.
    writeFileSync(join(fx.files, "release"), "");
    const aborted = await until(async () => (await statusOf(runId)).status === "aborted");
    expect(aborted, JSON.stringify(await statusOf(runId))).toBe(true);
    expect(existsSync(join(fx.files, "after.txt"))).toBe(false);
    expect(codeOf(await s.call("flow_run_prd", { prd }))).toBe("guard_locked");
    const unlock = await s.call("flow_emergency_unlock");
    const token = (dataOf(unlock).error as { confirmationToken: string }).confirmationToken;
    expect(dataOf(await s.call("flow_emergency_unlock", { confirmation_token: token })).locked).toBe(false);
  });

  it("flow_coverage reports the tools specialists can reach", async () => {
    const result = await s.call("flow_coverage");
    expect(result.isError, textOf(result)).toBeFalsy();
    const report = dataOf(result);
    expect(report.tools).toBe(13 + 14 + 12 + 5);
    expect(report.percent).toBeGreaterThan(0);
    expect((report.specialists as { name: string }[]).map((x) => x.name)).toContain("development-agent");
    expect(report.failures).toEqual([]);
  });

  it("flow_coverage with a PRD covers its specialists on their steps' servers, and refuses an invalid PRD", async () => {
    const prd = writePrd("coverage.json", [{ mcpTools: { step1: ["memory"] } }]);
    const result = await s.call("flow_coverage", { prd });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect((dataOf(result).specialists as { name: string }[]).map((x) => x.name)).toEqual(["development-agent"]);

    writeFileSync(join(fx.dir, "broken-coverage.json"), JSON.stringify({ project: "x", userStories: [{ id: 1 }] }));
    const invalid = await s.call("flow_coverage", { prd: "broken-coverage.json" });
    expect(codeOf(invalid)).toBe("prd_invalid");
    expect(textOf(invalid)).toContain("broken-coverage.json: $.userStories[0]");
  });
});
