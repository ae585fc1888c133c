import { rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { RunLauncher, type RunningConsole, startConsole } from "@meshflow/console";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../helpers/flowWorker.js";
import { FIXTURE_AGENTS, type FlowWorkspace, flowWorkspace, testStories } from "../helpers/flowWorkspace.js";
import { FLOW_BIN, flowEnv } from "../helpers/runFlow.js";

// GET /api/runs/:runId of a run started from the console whose `flow run` ended before it wrote
// anything to the run store: the console in this process, its RunLauncher running the built `flow`
// binary, real HTTP requests. The page of such a run once said "run not found" and nothing else: the
// route only read the store, and the launcher's exit code and stderr were shown on the Health page alone.
// Likewise a run of the store whose Resume from the console failed at once: its answer had only the
// store's record (still interrupted), never the command's exit code and stderr.

/** A server name that is markup: the page must show it as text. */
const MARKUP = "<img src=x onerror=alert(1)>";

/** A story whose step names an MCP server the config does not have: `flow run` refuses the PRD (exit 1). */
const unknownServer = (server: string) => ({ mcpTools: { step1: [server] } });

/** Writes a PRD file of the workspace from story fields. */
function writePrdFile(ws: FlowWorkspace, name: string, stories: Array<Record<string, unknown>>): void {
  writeFileSync(
    join(ws.dir, name),
    JSON.stringify({ project: "E2E", branchName: "flow/e2e", userStories: testStories(stories) }, null, 2),
  );
}

/** A console over the workspace's store whose launcher runs the real `flow` there. */
function consoleOf(ws: FlowWorkspace, keepEnded?: number): Promise<RunningConsole> {
  const storeRoot = join(ws.dir, ".flow");
  return startConsole({
    storeRoot,
    port: 0,
    watchIntervalMs: 100,
    launcher: new RunLauncher({
      flowBin: FLOW_BIN,
      storeRoot,
      cwd: ws.dir,
      env: flowEnv({ FLOW_AGENTS: FIXTURE_AGENTS, FLOW_SKILLS: join(ws.dir, "no-skills"), FLOW_HOME: undefined }),
      ...(keepEnded !== undefined ? { keepEnded } : {}),
    }),
  });
}

async function getJson(base: string, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(new URL(path, base));
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Starts `flow run <prd>` through the API; the new run's id and pid. */
async function startRun(base: string, prd: string): Promise<{ runId: string; pid: number }> {
  const res = await fetch(new URL("/api/runs", base), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ prd }),
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { launched: { runId: string; pid: number } }).launched;
}

/** What `GET /api/runs/:runId` answers once the launch of `runId` has ended. */
function ended(base: string, runId: string): Promise<Record<string, unknown>> {
  return until(`flow run ${runId} to end`, async () => {
    const { status, body } = await getJson(base, `/api/runs/${runId}`);
    const launch = body.launch as { state?: string } | undefined;
    return status === 200 && launch?.state === "ended" ? body : undefined;
  });
}

/** The frames of the console's event stream, collected until `close()`. */
function eventStream(base: string): { frames: string[]; close(): void } {
  const frames: string[] = [];
  let buffer = "";
  const req = request(new URL("/api/stream", base), (res) => {
    res.on("data", (d: Buffer) => {
      buffer += d.toString("utf8");
      let at = buffer.indexOf("\n\n");
      while (at >= 0) {
        frames.push(buffer.slice(0, at));
        buffer = buffer.slice(at + 2);
        at = buffer.indexOf("\n\n");
      }
    });
  });
  req.on("error", () => {});
  req.end();
  return { frames, close: () => req.destroy() };
}

describe("GET /api/runs/:runId of a run whose flow run ended before it started", { timeout: 120_000 }, () => {
  const ws = flowWorkspace();
  let running: RunningConsole;
  let base: string;

  beforeAll(async () => {
    writePrdFile(ws, "unknown-server.json", [unknownServer(MARKUP)]);
    // Enough problems that flow run's stderr passes the 4,096 bytes the console keeps of it.
    writePrdFile(
      ws,
      "many-problems.json",
      Array.from({ length: 150 }, (_, i) => unknownServer(`missing-server-${i}`)),
    );
    running = await consoleOf(ws);
    base = running.url;
  });

  afterAll(async () => {
    await running?.close();
  });

  it("answers the launch while it starts, then its exit code and stderr tail, and tells the page it ended", async () => {
    const { runId, pid } = await startRun(base, "unknown-server.json");
    // Held before it can read the PRD, the command has written nothing: the run is starting.
    process.kill(pid, "SIGSTOP");
    const stream = eventStream(base);
    try {
      const starting = await getJson(base, `/api/runs/${runId}`);
      expect(starting.status).toBe(200);
      expect(starting.body).toEqual({
        runId,
        launch: { runId, pid, startedAt: expect.any(String), command: "run", state: "starting" },
      });
      await until("the event stream to connect", () => stream.frames.length > 0);
    } finally {
      process.kill(pid, "SIGCONT");
    }
    try {
      const answer = await ended(base, runId);
      // Only what the launcher knows of the command: no environment, no arguments.
      expect(answer).toEqual({
        runId,
        launch: {
          runId,
          pid,
          startedAt: expect.any(String),
          command: "run",
          state: "ended",
          endedAt: expect.any(String),
          code: 1,
          signal: null,
          stderrTail: expect.any(String),
        },
      });
      const tail = (answer.launch as { stderrTail: string }).stderrTail;
      expect(tail).toContain(`$.userStories[0].mcpTools.step1[0]: unknown MCP server "${MARKUP}"`);
      expect(tail).toContain("nothing was run");
      // The run's page is told over the event stream: no file of the store changed.
      await until("a runs event naming the run", () =>
        stream.frames.some((f) => f.startsWith("event: runs\n") && f.includes(JSON.stringify(runId))),
      );
    } finally {
      stream.close();
    }
    // Nothing of it is in the store: the runs list does not have it; a run never started here is still unknown.
    expect((await getJson(base, "/api/runs")).body.total).toBe(0);
    const unknown = await getJson(base, "/api/runs/20200101-000000-0000");
    expect(unknown.status).toBe(404);
    expect((unknown.body.error as { code: string }).code).toBe("run_not_found");
  });

  it("keeps the end of the command's stderr, at most 4,096 bytes from a whole line", async () => {
    const { runId } = await startRun(base, "many-problems.json");
    const launch = (await ended(base, runId)).launch as { code: number; stderrTail: string };
    expect(launch.code).toBe(1);
    expect(Buffer.byteLength(launch.stderrTail)).toBeLessThanOrEqual(4_096);
    expect(Buffer.byteLength(launch.stderrTail)).toBeGreaterThan(3_000);
    expect(launch.stderrTail).toMatch(/^\S*many-problems\.json: \$\.userStories\[\d+\]/);
    expect(launch.stderrTail).toContain("missing-server-149");
    expect(launch.stderrTail).not.toContain('"missing-server-0"');
    expect(launch.stderrTail.trimEnd().endsWith("nothing was run")).toBe(true);
  });
});

describe("RunLauncher's keepEnded", { timeout: 120_000 }, () => {
  it("forgets the oldest ended launch past the bound: its run is not found again", async () => {
    const ws = flowWorkspace();
    writePrdFile(ws, "unknown-server.json", [unknownServer("nowhere")]);
    const running = await consoleOf(ws, 1);
    try {
      const first = await startRun(running.url, "unknown-server.json");
      await ended(running.url, first.runId);
      const second = await startRun(running.url, "unknown-server.json");
      await ended(running.url, second.runId);
      const forgotten = await getJson(running.url, `/api/runs/${first.runId}`);
      expect(forgotten.status).toBe(404);
      expect((forgotten.body.error as { code: string }).code).toBe("run_not_found");
      const health = await getJson(running.url, "/api/health");
      expect((health.body.ended as Array<{ runId: string }>).map((e) => e.runId)).toEqual([second.runId]);
    } finally {
      await running.close();
    }
  });
});

describe("GET /api/runs/:runId of a run in the store whose Resume from the console failed at once", {
  timeout: 120_000,
}, () => {
  it("attaches the launch (exit code, stderr tail) to the run's answer, and tells the page it ended", async () => {
    const ws = flowWorkspace();
    ws.writePrd([
      { mcpTools: { step1: ["slow"] }, calls: { step1: [{ tool: "slow__wait_for", args: { file: "release" } }] } },
    ]);
    const run = ws.spawnFlow(["run", "prd.json", "--json", "--run-id", "cut"]);
    await run.next((e) => e.type === "tool.called" && e.tool === "slow__wait_for");
    run.child.kill("SIGKILL");
    await run.exit;
    // flow resume reads the PRD first: without it, it ends at once (exit 2) and changes nothing in the store.
    rmSync(ws.prd);
    const running = await consoleOf(ws);
    const stream = eventStream(running.url);
    try {
      const before = await getJson(running.url, "/api/runs/cut");
      expect((before.body.run as { status: string }).status).toBe("interrupted");
      // No command of this console for it: the store's answer alone.
      expect(before.body).not.toHaveProperty("launch");
      await until("the event stream to connect", () => stream.frames.length > 0);
      const resumed = await fetch(new URL("/api/runs/cut/resume", running.url), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(resumed.status).toBe(202);
      const { pid } = ((await resumed.json()) as { launched: { pid: number } }).launched;
      const answer = await until("flow resume cut to end", async () => {
        const { body } = await getJson(running.url, "/api/runs/cut");
        return (body.launch as { state?: string } | undefined)?.state === "ended" ? body : undefined;
      });
      expect(Object.keys(answer).sort()).toEqual(["launch", "record", "results", "run", "tree", "turns"]);
      expect((answer.run as { runId: string; status: string }).status).toBe("interrupted");
      expect(answer.launch).toEqual({
        runId: "cut",
        pid,
        startedAt: expect.any(String),
        command: "resume",
        state: "ended",
        endedAt: expect.any(String),
        code: 2,
        signal: null,
        stderrTail: expect.stringContaining(`${ws.prd}: cannot read PRD: no such file`),
      });
      await until("a runs event naming the run", () =>
        stream.frames.some((f) => f.startsWith("event: runs\n") && f.includes('"cut"')),
      );
    } finally {
      stream.close();
      await running.close();
    }
  });
});
