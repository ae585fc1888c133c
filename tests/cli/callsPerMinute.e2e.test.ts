import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_CALLS_PER_MINUTE } from "@meshflow/mcp";
import { describe, expect, it } from "vitest";
import { DEFAULT_CALLS_PER_MINUTE as CLI_DEFAULT } from "../../packages/cli/src/register/shared.js";
import { flowWorkspace, parseEvents } from "../helpers/flowWorkspace.js";

const echoes = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => ({ tool: "everything__echo", args: { message: `m${from + i}` } }));

/** `stories` stories of `calls` scripted echo calls each, on server-everything. */
function echoStories(stories: number, calls: number) {
  return Array.from({ length: stories }, (_, i) => ({
    id: `US-${String(i + 1).padStart(3, "0")}`,
    mcpTools: { step1: ["everything"] },
    calls: { step1: echoes(calls, i * calls) },
  }));
}

describe("flow run --calls-per-minute", () => {
  it("lets a 6,000-call PRD run through with the default limit", async () => {
    // Regression: flow run's guard allowed 120 calls a minute, then locked for good, so a large
    // scripted PRD failed part-way with rate_limit_exceeded.
    const ws = flowWorkspace();
    ws.writePrd(echoStories(60, 100));
    const result = await ws.flow(["run", "prd.json", "--json"]);
    expect(result.stderr).not.toContain("rate limit");
    expect(result.code).toBe(0);
    const events = parseEvents(result.stdout);
    expect(events.filter((e) => e.type === "tool.result" && !e.isError)).toHaveLength(6_000);
    expect(events.filter((e) => e.type === "tool.refused")).toEqual([]);
  }, 120_000);

  it("pauses past the limit it is given (exit 130), naming the flag to change and the resume that continues", async () => {
    const ws = flowWorkspace();
    const before = ws.writePrd(echoStories(1, 8));
    const result = await ws.flow(["run", "prd.json", "--calls-per-minute", "5", "--run-id", "limited"]);
    expect(result.code).toBe(130);
    expect(result.stdout).toMatch(
      /refused everything__echo: rate_limit_exceeded: .*more than 5 calls .*--calls-per-minute/,
    );
    expect(result.stdout).not.toMatch(/failed: call 6 of 8/);
    expect(result.stderr).toContain("run limited paused: the guard locked (rate_limit_exceeded: rate limit exceeded");
    expect(result.stderr).toContain("continue it with: flow resume limited --calls-per-minute <n>");
    expect(readFileSync(ws.prd, "utf8")).toBe(before);
  });

  it("0 turns the limit off", async () => {
    const ws = flowWorkspace();
    ws.writePrd(echoStories(1, 8));
    const result = await ws.flow(["run", "prd.json", "--calls-per-minute", "0"]);
    expect(result.stdout).not.toContain("rate limit");
    expect(result.code).toBe(0);
  });

  it("is shown with its default in --help of flow run, flow resume, flow serve and flow worker", async () => {
    const ws = flowWorkspace();
    expect(CLI_DEFAULT).toBe(DEFAULT_CALLS_PER_MINUTE);
    for (const command of ["run", "serve", "worker"]) {
      const help = await ws.flow([command, "--help"]);
      expect(help.stdout.replace(/\s+/g, " ")).toContain(`--calls-per-minute <n>`);
      expect(help.stdout.replace(/\s+/g, " ")).toContain(`(default: ${DEFAULT_CALLS_PER_MINUTE})`);
    }
    const resume = await ws.flow(["resume", "--help"]);
    expect(resume.stdout.replace(/\s+/g, " ")).toContain("default: the value the run was started with");
  });
});

describe("flow resume --calls-per-minute", () => {
  it("uses the limit the run was started with unless given", async () => {
    // Regression: resume rebuilt the guard with the default, whatever the run was started with.
    const ws = flowWorkspace();
    ws.writePrd([
      {
        mcpTools: { step1: ["slow", "everything"] },
        calls: { step1: [{ tool: "slow__wait_for", args: { file: "release" } }, ...echoes(4)] },
      },
    ]);
    const run = ws.spawnFlow(["run", "prd.json", "--json", "--run-id", "limited", "--calls-per-minute", "3"]);
    await run.next((e) => e.type === "tool.called" && e.tool === "slow__wait_for");
    run.child.kill("SIGKILL");
    await run.exit;
    const record = JSON.parse(readFileSync(join(ws.dir, ".flow/runs/limited/run.json"), "utf8"));
    expect(record.options.callsPerMinute).toBe(3);
    writeFileSync(join(ws.files, "release"), "");

    const resumed = await ws.flow(["resume", "limited"]);
    expect(resumed.code).toBe(130);
    // wait_for (read-only, outcome unknown) runs again: with echo 1 and 2 that is 3 calls; echo 3 is refused.
    expect(resumed.stdout).toMatch(
      /refused everything__echo: rate_limit_exceeded: .*more than 3 calls .*--calls-per-minute/,
    );
  });

  it("takes a new limit when given one", async () => {
    const ws = flowWorkspace();
    ws.writePrd([
      {
        mcpTools: { step1: ["slow", "everything"] },
        calls: { step1: [{ tool: "slow__wait_for", args: { file: "release" } }, ...echoes(4)] },
      },
    ]);
    const run = ws.spawnFlow(["run", "prd.json", "--json", "--run-id", "limited", "--calls-per-minute", "3"]);
    await run.next((e) => e.type === "tool.called" && e.tool === "slow__wait_for");
    run.child.kill("SIGKILL");
    await run.exit;
    writeFileSync(join(ws.files, "release"), "");
    const resumed = await ws.flow(["resume", "limited", "--calls-per-minute", "10"]);
    expect(resumed.stdout).not.toContain("rate limit");
    expect(resumed.code).toBe(0);
  });
});
