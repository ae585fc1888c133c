import { writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchBrowser, type TestBrowser } from "../helpers/browser.js";
import { type FlowConsole, startFlowConsole } from "../helpers/flowConsole.js";
import { startFlowWorker } from "../helpers/flowWorker.js";
import { FIXTURE_AGENTS, flowWorkspace } from "../helpers/flowWorkspace.js";
import { enqueue, finishedRun } from "../helpers/queuedRuns.js";
import { ROOT } from "../helpers/runFlow.js";

// The console's pictures of a run, as a user meets them: real `flow run`s against our real slow
// server and server-memory, `flow console` as a subprocess and Debian's chromium through
// playwright-core. Screenshots land in test-artifacts/.

/** [start, end] (epoch ms) of the story bars of each lane of the timeline's overview. */
type LaneBars = Record<string, Array<[number, number]>>;

describe("flow console: timeline, graph, cost, and runs started from the page", { timeout: 120_000 }, () => {
  let browser: TestBrowser;

  beforeAll(async () => {
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
  });

  it("draws a --parallel 3 run as three lanes whose bars overlap, and opens a bar in the tree", async () => {
    const { page } = browser;
    const ws = flowWorkspace();
    const waiting = (n: number) => ({
      mcpTools: { step1: ["slow", "memory"] },
      calls: {
        step1: [
          { tool: "slow__wait_for", args: { file: "release" } },
          { tool: "memory__read_graph", args: {} },
        ],
      },
      title: `Story ${n}`,
    });
    ws.writePrd([waiting(1), waiting(2), waiting(3)]);
    const run = ws.spawnFlow(["run", "prd.json", "--json", "--parallel", "3", "--run-id", "three"]);
    let flowConsole: FlowConsole | undefined;
    try {
      // The three stories wait on the same file at once: only a run that keeps three going gets here.
      for (const id of ["US-001", "US-002", "US-003"])
        await run.next((e) => e.type === "tool.called" && e.tool === "slow__wait_for" && e.storyId === id);
      flowConsole = await startFlowConsole([], { cwd: ws.dir });
      await page.goto(`${flowConsole.url}#/runs/three?view=timeline`);
      // Live: the open page shows the run's three lanes while it runs.
      await page.locator('.lanes .lane[data-lane="lane:3"]').waitFor();
      await page.locator('.waterfall .bar.open[data-kind="call"]').first().waitFor();
      writeFileSync(join(ws.files, "release"), "");
      expect(await run.exit, run.stderr()).toBe(0);
      await page.locator("h1", { hasText: "passed" }).waitFor();
      await page.locator('.waterfall .bar[data-story="US-003"][data-kind="call"]').nth(1).waitFor();
      const bars: LaneBars = {};
      for (const lane of await page.locator(".lanes .lane").all()) {
        const spans: Array<[number, number]> = [];
        for (const bar of await lane.locator(".bar").all())
          spans.push([Number(await bar.getAttribute("data-start")), Number(await bar.getAttribute("data-end"))]);
        bars[(await lane.getAttribute("data-lane")) ?? "?"] = spans;
      }
      expect(Object.keys(bars)).toEqual(["lane:1", "lane:2", "lane:3"]);
      // One story a lane, and each one's bar overlaps the two others in time.
      const [a, b, c] = Object.values(bars).map((l): [number, number] => {
        expect(l).toHaveLength(1);
        return l[0] ?? [0, 0];
      });
      const overlap = (x?: [number, number], y?: [number, number]) => !!x && !!y && x[0] < y[1] && y[0] < x[1];
      expect([overlap(a, b), overlap(b, c), overlap(a, c)]).toEqual([true, true, true]);
      // Every bar names its story and, below the story, its step.
      expect(await page.locator('.waterfall .bar[data-story="US-002"][data-step="1"]').count()).toBeGreaterThan(1);
      await page.locator('.waterfall .bar[data-story="US-002"][data-kind="call"]').first().hover();
      expect(await page.getByRole("tooltip").textContent()).toContain("slow__wait_for");
      await browser.screenshot("console-timeline");
      // A click opens the item in the tree, unfolded and marked.
      await page.locator('.waterfall .bar[data-story="US-002"][data-kind="call"]').first().click();
      const chosen = page.locator('li.call[data-focus="1"]');
      await chosen.waitFor();
      expect(await chosen.getAttribute("data-key")).toBe("three/US-002/step1/1");
      expect(await chosen.locator("details").getAttribute("open")).toBe("");
      expect(page.url()).toMatch(/#\/runs\/three$/);
    } finally {
      if (run.child.exitCode === null) run.child.kill("SIGKILL");
      await flowConsole?.stop();
    }
  });

  it("gives a queued run's timeline one lane per worker, named after it", async () => {
    const { page } = browser;
    const ws = flowWorkspace();
    const prefix = `pictures-${process.pid}:`;
    const redis = inject("redisUrl");
    ws.writePrd([
      { mcpTools: { step1: ["memory"] }, calls: { step1: [{ tool: "memory__read_graph", args: {} }] } },
      { mcpTools: { step1: ["memory"] }, calls: { step1: [{ tool: "memory__read_graph", args: {} }] } },
    ]);
    const [runId = "?"] = await enqueue(ws, redis, ["prd.json", "--redis-prefix", prefix]);
    const worker = await startFlowWorker(ws, redis, ["--redis-prefix", prefix]);
    let flowConsole: FlowConsole | undefined;
    try {
      const run = await finishedRun(redis, runId, { prefix });
      expect(run.status).toBe("passed");
      flowConsole = await startFlowConsole(["--redis", redis, "--redis-prefix", prefix], { cwd: ws.dir });
      await page.goto(`${flowConsole.url}#/runs/${encodeURIComponent(runId)}?view=timeline`);
      const lane = page.locator(`.lanes .lane[data-lane="worker:${run.worker}"]`);
      await lane.waitFor();
      expect(await lane.locator(".lane-label").textContent()).toBe(`worker ${run.worker}`);
      expect(await lane.locator(".bar").count()).toBe(2);
      expect(await page.locator(".lanes .lane").count()).toBe(1);
    } finally {
      await worker.stop("SIGTERM");
      await flowConsole?.stop();
    }
  });

  it("draws the mesh of a run with a consultation: the edge between the two specialists", async () => {
    const { page } = browser;
    const ws = flowWorkspace({
      agents: [join(ROOT, "tests/fixtures/agents-mesh"), join(ROOT, "agents/security-agent")].join(delimiter),
    });
    const append = (line: string) => ({ tool: "slow__append_line", args: { file: "log.txt", line } });
    ws.writePrd([
      {
        mcpTools: { step1: ["slow"] },
        calls: { step1: [append("step")] },
        consult: { "development-agent": ["quality-agent"] },
        agentConfig: {
          "development-agent": { ask: ["quality-agent"] },
          "quality-agent": { calls: [append("consulted")] },
        },
      },
      { mcpTools: { step1: ["slow"] }, calls: { step1: [append("second")] } },
    ]);
    const run = await ws.flow(["run", "prd.json", "--run-id", "mesh"]);
    expect(run.code, run.stderr).toBe(0);
    const flowConsole = await startFlowConsole([], { cwd: ws.dir });
    try {
      await page.goto(`${flowConsole.url}#/runs/mesh?view=graph`);
      const consult = page.locator(
        'g.edge[data-kind="consult"][data-from="specialist:development-agent"][data-to="specialist:quality-agent"]',
      );
      await consult.waitFor();
      expect(await consult.getAttribute("data-label")).toMatch(/^1 consultation · p50 \d+(\.\d)? m?s$/);
      const tools = page.locator('g.edge[data-from="specialist:development-agent"][data-to="server:slow"]');
      expect(await tools.getAttribute("data-count")).toBe("2");
      expect(await page.locator('g.edge[data-from="specialist:quality-agent"][data-to="server:slow"]').count()).toBe(1);
      expect(await page.locator('g.node[data-node="chief"]').textContent()).toBe("chief analyst");
      // Every story is shown at first; clicking US-002 highlights its path, the consultation was US-001's only.
      expect(await page.locator('.graph [data-highlight="1"]').count()).toBe(0);
      await page.locator('.story-list button[data-story="US-002"]').click();
      await page.waitForURL(/#\/runs\/mesh\?view=graph&story=US-002$/);
      await tools.and(page.locator('[data-highlight="1"]')).waitFor();
      expect(await consult.getAttribute("data-highlight")).toBeNull();
      expect(await consult.getAttribute("class")).toContain("off");
      const lit = async () => ({
        edges: await page
          .locator('g.edge[data-highlight="1"]')
          .evaluateAll((es) => es.map((e) => e.getAttribute("data-edge"))),
        nodes: await page
          .locator('g.node[data-highlight="1"]')
          .evaluateAll((es) => es.map((e) => e.getAttribute("data-node"))),
      });
      expect(await lit()).toEqual({
        edges: ["chief->specialist:development-agent", "specialist:development-agent->server:slow"],
        nodes: ["chief", "specialist:development-agent", "server:slow"],
      });
      expect(await page.locator('g.node[data-node="specialist:quality-agent"]').getAttribute("class")).toContain("off");
      await page.locator('.story-list button[data-story="US-001"]').click();
      await consult.and(page.locator('[data-highlight="1"]')).waitFor();
      expect((await lit()).nodes).toContain("specialist:quality-agent");
      // The tree's "show in graph" link and a story's bar in the timeline's lanes open the same picture.
      await page.goto(`${flowConsole.url}#/runs/mesh`);
      await page.locator('a.show-in-graph[data-story="US-002"]').click();
      await page.waitForURL(/\?view=graph&story=US-002$/);
      expect(await page.locator('.story-list button[data-story="US-002"]').getAttribute("aria-pressed")).toBe("true");
      await page.goto(`${flowConsole.url}#/runs/mesh?view=timeline`);
      await page.locator('.lanes .bar[data-kind="story"][data-story="US-001"]').click();
      await page.waitForURL(/\?view=graph&story=US-001$/);
      await consult.and(page.locator('[data-highlight="1"]')).waitFor();
      await browser.screenshot("console-graph");
    } finally {
      await flowConsole.stop();
    }
  });

  it("marks a story and the call waiting for approval on the timeline, and the call once decided", async () => {
    const { page } = browser;
    const ws = flowWorkspace();
    ws.writePrd([
      {
        mcpTools: { step1: ["filesystem"] },
        calls: { step1: [{ tool: "filesystem__write_file", args: { path: join(ws.files, "a.txt"), content: "a\n" } }] },
      },
    ]);
    const run = await ws.flow(["run", "prd.json", "--approve", "destructive", "--run-id", "waits"]);
    expect(run.code, run.stderr).toBe(4);
    const flowConsole = await startFlowConsole(["--cache", join(ws.dir, "c.json")], {
      cwd: ws.dir,
      env: { FLOW_AGENTS: undefined, FLOW_SKILLS: undefined },
    });
    try {
      await page.goto(`${flowConsole.url}#/runs/waits?view=timeline`);
      const story = page.locator('.lanes .bar.m-approval[data-kind="story"][data-story="US-001"]');
      await story.waitFor();
      expect(await story.getAttribute("data-approval")).toBe("waiting");
      const call = page.locator('.waterfall .bar[data-kind="call"][data-story="US-001"]');
      expect(await call.getAttribute("class")).toContain("m-approval");
      expect(await call.getAttribute("data-approval")).toBe("waiting");
      expect(await call.getAttribute("data-step")).toBe("1");
      // The run is paused, not running: its story and step are not drawn as running.
      for (const kind of ["story", "step"])
        expect(
          await page.locator(`.waterfall .bar[data-kind="${kind}"][data-story="US-001"]`).getAttribute("class"),
        ).not.toMatch(/\bopen\b/);
      await call.hover();
      const card = page.getByRole("tooltip");
      expect(await card.textContent()).toContain("filesystem__write_file waiting for approval");
      await browser.screenshot("console-timeline-approval");

      const decided = await ws.flow(["approve", "waits", "--all", "--deny", "--reason", "not this file"]);
      expect(decided.code, decided.stderr).toBe(0);
      await page.reload();
      await call.and(page.locator('[data-approval="denied"]')).waitFor();
      expect(await call.getAttribute("class")).toContain("a-denied");
      expect(await page.locator('.lanes .bar[data-story="US-001"]').getAttribute("data-approval")).toBeNull();
      await call.hover();
      expect(await page.getByRole("tooltip").textContent()).toContain("filesystem__write_file denied by flow approve");
    } finally {
      await flowConsole.stop();
    }
  });

  it("starts a run of a project PRD from the page; it appears in flow runs and passes; cost and comparison show", async () => {
    const { page } = browser;
    const ws = flowWorkspace();
    const entity = (name: string) => ({ name, entityType: "feature", observations: [] });
    ws.writePrd([
      {
        mcpTools: { step1: ["memory"] },
        calls: { step1: [{ tool: "memory__create_entities", args: { entities: [entity("from-page")] } }] },
      },
      { mcpTools: { step1: ["memory"] }, calls: { step1: [{ tool: "memory__read_graph", args: {} }] } },
    ]);
    const before = await ws.flow(["run", "prd.json", "--run-id", "before"]);
    expect(before.code, before.stderr).toBe(0);
    // The run before marked both stories passed: the page's run starts from a fresh PRD again.
    ws.writePrd([
      {
        mcpTools: { step1: ["memory"] },
        calls: { step1: [{ tool: "memory__create_entities", args: { entities: [entity("from-page")] } }] },
      },
      { mcpTools: { step1: ["memory"] }, calls: { step1: [{ tool: "memory__read_graph", args: {} }] } },
    ]);
    const flowConsole = await startFlowConsole([], {
      cwd: ws.dir,
      env: { FLOW_AGENTS: FIXTURE_AGENTS, FLOW_SKILLS: join(ws.dir, "no-skills"), FLOW_HOME: undefined },
    });
    try {
      // The start API keeps to the project and to the console's guard and token rules.
      const post = (body: unknown, headers: Record<string, string> = { "content-type": "application/json" }) =>
        fetch(`${flowConsole.url}api/runs`, { method: "POST", headers, body: JSON.stringify(body) });
      const outside = await post({ prd: "../prd.json" });
      expect(outside.status).toBe(400);
      expect(((await outside.json()) as { error: { message: string } }).error.message).toContain("outside the project");
      expect((await post({ prd: "prd.json" }, { "content-type": "text/plain" })).status).toBe(400);
      expect((await post({ prd: "prd.json", parallel: 0 })).status).toBe(400);

      await page.goto(`${flowConsole.url}#/runs`);
      await page.locator("summary", { hasText: "Start a run" }).click();
      const form = page.getByRole("form", { name: "Start a run" });
      await form.getByLabel("PRD", { exact: true }).selectOption("prd.json");
      await form.getByLabel("Parallel", { exact: true }).fill("2");
      await browser.screenshot("console-start-run");
      await form.getByRole("button", { name: "Start run" }).click();
      await page.waitForURL(/#\/runs\/\d{8}-\d{6}-[0-9a-f]{4}$/);
      const runId = decodeURIComponent(page.url().split("#/runs/")[1] ?? "");
      await page.locator("h1", { hasText: "passed" }).waitFor({ timeout: 60_000 });
      const runs = await ws.flow(["runs", "--json"]);
      const listed = (JSON.parse(runs.stdout) as { runs: Array<{ runId: string; status: string; options?: unknown }> })
        .runs;
      expect(listed.find((r) => r.runId === runId)?.status).toBe("passed");
      expect(ws.entities()).toContain("from-page");

      await page.getByRole("link", { name: "Cost" }).click();
      await page.getByRole("heading", { name: "Tokens and cost over time" }).waitFor();
      await page.getByLabel("Compare with run", { exact: true }).selectOption("before");
      const table = page.getByRole("table", { name: `Run ${runId} against run before` });
      await table.locator('tr[data-story="US-002"]').waitFor();
      expect(await table.locator('tr[data-story="US-001"]').textContent()).toContain("passed → passed");
      await browser.screenshot("console-cost");
    } finally {
      await flowConsole.stop();
    }
  });
});
