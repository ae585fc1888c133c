import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, inject, it } from "vitest";
import { FAST_FAILOVER, type FlowWorker, startFlowWorker, until } from "../helpers/flowWorker.js";
import { flowWorkspace, parseEvents, serverEntry } from "../helpers/flowWorkspace.js";
import { enqueue, finishedRun, queuedStatus } from "../helpers/queuedRuns.js";
import { ROOT } from "../helpers/runFlow.js";

let workers: FlowWorker[] = [];
afterEach(async () => {
  await Promise.all(workers.map((w) => w.stop("SIGTERM")));
  workers = [];
});

/** Every path under `dir` except the run store, relative to it. */
function workspaceFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => !f.startsWith(".flow")).sort();
}

describe("queued runs leave the workspace alone", () => {
  it("a per-story run over two workers whose steps scan the workspace reports what an inline run does; no PRD copy ever appears in it", async () => {
    const prefix = `ws-${process.pid}-${Date.now()}:`;
    const url = inject("redisUrl");
    // The shipped security and refactor specialists scan the whole workspace through a filesystem
    // server rooted at it, where the PRD lives too.
    const env = { FLOW_AGENTS: join(ROOT, "agents"), FLOW_SKILLS: join(ROOT, "skills") };
    const ws = flowWorkspace({ env });
    writeFileSync(
      join(ws.dir, ".mcp.json"),
      JSON.stringify({
        mcpServers: {
          workspace: {
            command: process.execPath,
            args: [serverEntry("@modelcontextprotocol/server-filesystem"), ws.dir],
          },
        },
      }),
    );
    writeFileSync(join(ws.dir, "files/app.js"), "export const add = (a, b) => a + b;\n");
    writeFileSync(join(ws.dir, "files/util.js"), "export const twice = (x) => x * 2;\n");
    // Every file counts (JSON included), so a stray PRD copy would change the figures. A run's own files
    // beside the PRD — its lock (`.prd.json.lock`, while it runs) and its progress log (`prd.progress.md`,
    // which the workers of a queued run write there too) — are left out of both scans.
    const lock = ["**/.prd.json.lock", "**/prd.progress.md"];
    const measureAll = {
      agentConfig: { "refactor-agent": { include: ["**/*"], exclude: lock }, "security-agent": { exclude: lock } },
    };
    ws.writePrd([
      {
        mavenSteps: [3],
        mcpTools: { step3: ["workspace"] },
        ...measureAll,
        // Relative to the PRD's folder in the workspace, as written, wherever the worker keeps its copy.
        verify: [{ run: [process.execPath, "-e", "require('fs').accessSync('app.js')"], cwd: "files" }],
      },
      { mavenSteps: [8], mcpTools: { step8: ["workspace"] }, ...measureAll },
      { mavenSteps: [3, 8], mcpTools: { step3: ["workspace"], step8: ["workspace"] }, ...measureAll },
    ]);
    const prdText = readFileSync(ws.prd, "utf8");
    const before = workspaceFiles(ws.dir);

    const inline = await ws.flow(["run", "prd.json", "--json"]);
    const inlineStories = parseEvents(inline.stdout)
      .filter((e) => e.type === "step.finished")
      .map((e) => (e.type === "step.finished" ? [e.storyId, e.step, e.status, e.summary] : []));
    expect(inlineStories.map((s) => s[2])).toEqual(["passed", "passed", "passed", "passed"]);
    writeFileSync(ws.prd, prdText);
    rmSync(join(ws.dir, "prd.progress.md"));

    for (let i = 0; i < 2; i++)
      workers.push(await startFlowWorker(ws, url, ["--redis-prefix", prefix, "--run-concurrency", "1"], env));
    const seen = new Set<string>();
    let polling = true;
    const poll = (async () => {
      while (polling) {
        for (const f of workspaceFiles(ws.dir)) seen.add(f);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const queued = await ws.flow([
      "enqueue",
      "prd.json",
      "--per-story",
      "--wait",
      "--redis",
      url,
      "--redis-prefix",
      prefix,
    ]);
    polling = false;
    await poll;
    expect(queued.stderr).toBe("");
    expect(queued.code).toBe(0);
    const runId = /^queued (\S+)/.exec(queued.stdout)?.[1] ?? "";
    const { stories } = await queuedStatus(ws, url, runId, prefix);
    const queuedSteps = stories.flatMap((s) => s.steps.map((st) => [s.id, st.step, st.status, st.summary]));
    expect(queuedSteps).toEqual(inlineStories);
    expect(stories[0]?.gate).toEqual({ passed: true, summary: "1 verify command passed" });
    // Both workers took stories.
    expect(new Set(stories.map((s) => s.worker)).size).toBe(2);
    // Nothing but the files that were there ever appeared in the workspace, apart from the PRD's progress
    // log (the workers' PRD workflow, as flow run's) and those of `flow enqueue --wait` itself (on the
    // enqueuer's machine, as asked): the PRD lock it holds while it waits, as a run does (taken through
    // `.prd.json.lock.<pid>.taking`), and the temporary file replacing the PRD atomically.
    const workerPids = new Set(workers.map((w) => String(w.child.pid)));
    const enqueuerWrite = (f: string) => {
      if (f === ".prd.json.lock" || f === "prd.progress.md") return true;
      const pid = /^\.prd\.json\.(?:lock\.(\d+)\.taking|(\d+)\.\d+\.tmp)$/.exec(f)?.slice(1).find(Boolean);
      return pid !== undefined && !workerPids.has(pid);
    };
    expect([...seen].filter((f) => !enqueuerWrite(f)).sort()).toEqual(before);
    expect([...seen].filter((f) => f.includes(".flow-queued"))).toEqual([]);
    // The copies lived in the workers' store and are gone.
    expect(readdirSync(join(ws.dir, ".flow/queued"))).toEqual([]);
  }, 120_000);

  it("a killed worker's PRD copy stays in its store, and the next worker start removes it", async () => {
    const prefix = `kill-${process.pid}-${Date.now()}:`;
    const url = inject("redisUrl");
    const ws = flowWorkspace();
    ws.writePrd([
      { mcpTools: { step1: ["slow"] }, calls: { step1: [{ tool: "slow__wait_for", args: { file: "go" } }] } },
    ]);
    const copies = () => readdirSync(join(ws.dir, ".flow/queued"));
    const first = await startFlowWorker(ws, url, ["--redis-prefix", prefix, ...FAST_FAILOVER]);
    workers.push(first);
    const [runId] = await enqueue(ws, url, ["prd.json", "--redis-prefix", prefix]);
    const pid = first.child.pid;
    await until("the run's copy in the worker's store", () => {
      try {
        return copies().includes(`${pid}-${runId}.json`);
      } catch {
        return false;
      }
    });
    expect(readdirSync(ws.dir).filter((f) => f.includes("queued"))).toEqual([]);
    await first.stop("SIGKILL");
    // The dead worker's copy (and its lock) are left behind until a worker starts with this store.
    expect(copies()).toContain(`${pid}-${runId}.json`);
    const second = await startFlowWorker(ws, url, ["--redis-prefix", prefix, ...FAST_FAILOVER]);
    workers.push(second);
    expect(copies().filter((f) => f.includes(`${pid}-`))).toEqual([]);
    writeFileSync(join(ws.files, "go"), "");
    const run = await finishedRun(url, runId ?? "", { prefix });
    expect(run.status).toBe("passed");
    expect(copies()).toEqual([]);
  }, 90_000);
});
