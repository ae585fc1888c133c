import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { ScriptedModelServer } from "@meshflow/model/testing";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchBrowser, type TestBrowser } from "../helpers/browser.js";
import { type FlowConsole, startFlowConsole } from "../helpers/flowConsole.js";
import { startFlowWorker } from "../helpers/flowWorker.js";
import { flowWorkspace } from "../helpers/flowWorkspace.js";
import { enqueue } from "../helpers/queuedRuns.js";
import { ROOT } from "../helpers/runFlow.js";

// `flow console` as a user meets it: real runs of the real `flow` binary against real MCP servers
// (server-memory, our slow server), a real redis-server, the console as a subprocess, and Debian's
// chromium driven by playwright-core. Each page is saved as a screenshot under test-artifacts/.

const entity = (name: string) => ({ name, entityType: "feature", observations: [] });
/** The row of a run in the runs list. */
const runRow = (page: Page, runId: string) => page.locator(`tr[data-run="${runId}"]`);

describe("flow console", { timeout: 90_000 }, () => {
  const ws = flowWorkspace();
  const prefix = `console-${process.pid}:`;
  const skills = join(ws.dir, "skills");
  let browser: TestBrowser;
  let flowConsole: FlowConsole;

  beforeAll(async () => {
    // The console edits this copy of the shipped skills' overrides.
    cpSync(join(ROOT, "skills"), skills, { recursive: true });
    ws.writePrd([
      {
        mcpTools: { step1: ["memory"] },
        calls: {
          step1: [
            { tool: "memory__create_entities", args: { entities: [entity("console-seen")] } },
            { tool: "memory__read_graph", args: {} },
          ],
        },
      },
    ]);
    const first = await ws.flow(["run", "prd.json", "--run-id", "first"]);
    expect(first.code, first.stderr).toBe(0);
    flowConsole = await startFlowConsole(
      ["--skills", skills, "--redis", inject("redisUrl"), "--redis-prefix", prefix, "--cache", join(ws.dir, "c.json")],
      { cwd: ws.dir, env: { FLOW_AGENTS: undefined, FLOW_SKILLS: undefined } },
    );
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await flowConsole?.stop();
  });

  it("lists a run started by the test, with its status and counts", async () => {
    const { page } = browser;
    await page.goto(flowConsole.url);
    const row = runRow(page, "first");
    await row.waitFor();
    expect(await row.textContent()).toContain("passed");
    expect(await row.getByRole("link", { name: "first" }).isVisible()).toBe(true);
    await browser.screenshot("console-runs");
  });

  it("opens a run's tree: story, step, tool calls with their recorded results", async () => {
    const { page } = browser;
    await page.goto(`${flowConsole.url}#/runs/first`);
    await page.getByRole("heading", { name: /Run first/ }).waitFor();
    // By keyboard: a disclosure's summary takes focus and opens with Enter.
    await page.locator('details[data-story="US-001"] > summary').focus();
    await page.keyboard.press("Enter");
    await page.locator('details[data-step="1"] > summary').focus();
    await page.keyboard.press("Enter");
    const call = page.locator("li.call", { hasText: "memory__create_entities" });
    await call.locator("summary").click();
    await call.locator("pre").waitFor();
    expect(await call.locator("pre").textContent()).toContain("console-seen");
    expect(await page.locator("li.call", { hasText: "memory__read_graph" }).count()).toBe(1);
    await browser.screenshot("console-run-tree");
  });

  it("shows a live run as it goes, without reloading the page", async () => {
    const { page } = browser;
    ws.writePrd([
      {
        mcpTools: { step1: ["slow", "memory"] },
        calls: {
          step1: [
            { tool: "slow__wait_for", args: { file: "release" } },
            { tool: "memory__create_entities", args: { entities: [entity("after-release")] } },
          ],
        },
      },
    ]);
    await page.goto(`${flowConsole.url}#/runs`);
    await runRow(page, "first").waitFor();
    const run = ws.spawnFlow(["run", "prd.json", "--json", "--run-id", "live"]);
    try {
      await run.next((e) => e.type === "tool.called" && e.tool === "slow__wait_for");
      // The new run appears in the open list, running.
      await runRow(page, "live").filter({ hasText: "running" }).waitFor();
      await page.getByRole("link", { name: "live" }).click();
      const waiting = page.locator("li.call", { hasText: "slow__wait_for" });
      await browser.screenshot("console-live-run");
      writeFileSync(join(ws.files, "release"), "");
      expect(await run.exit).toBe(0);
      // The same page, never reloaded, shows the call answered and the run passed.
      await page.locator("h1", { hasText: "passed" }).waitFor();
      await page.locator("li.call", { hasText: "memory__create_entities" }).waitFor();
      expect(await waiting.textContent()).toContain("ok");
    } finally {
      if (run.child.exitCode === null) run.child.kill("SIGKILL");
    }
  });

  it("writes a capability override to capability-overrides.yaml from the tools page", async () => {
    const { page } = browser;
    await page.goto(`${flowConsole.url}#/tools`);
    const row = page.locator('tr[data-tool="memory__read_graph"]');
    await row.waitFor({ timeout: 60_000 });
    await row.getByRole("button", { name: "Edit capabilities of memory__read_graph" }).click();
    const form = page.getByRole("form", { name: "Capabilities of memory__read_graph" });
    await form.getByRole("checkbox", { name: "diagnostics" }).check();
    await form.getByRole("button", { name: "Save override" }).click();
    await page.getByRole("status").filter({ hasText: "written to" }).waitFor();
    const yaml = readFileSync(join(skills, "capability-overrides.yaml"), "utf8");
    expect(yaml).toMatch(/memory__read_graph: \[.*diagnostics.*\]/);
    // The admin's other entries and comments are kept.
    expect(yaml).toContain("everything__simulate-research-query: [diagnostics]");
    expect(yaml).toContain("# Admin overrides of tool capabilities.");
    await row.filter({ hasText: "override" }).waitFor();
    await page.getByRole("heading", { name: /Unreachable tools/ }).waitFor();
    await browser.screenshot("console-tools");
  });

  it("shows queued runs from Redis and the guard with its emergency stop", async () => {
    const { page } = browser;
    ws.writePrd([{ mcpTools: { step1: ["memory"] }, calls: { step1: [{ tool: "memory__read_graph", args: {} }] } }]);
    const [queued] = await enqueue(ws, inject("redisUrl"), ["prd.json", "--redis-prefix", prefix]);
    await page.goto(`${flowConsole.url}#/queue`);
    await page.locator("tr", { hasText: queued ?? "?" }).waitFor();
    expect(await page.getByRole("link", { name: "Open Bull Board" }).getAttribute("href")).toContain("3000");
    // A worker connects and runs it: the page (polling) shows the worker and the run passed.
    const worker = await startFlowWorker(ws, inject("redisUrl"), ["--redis-prefix", prefix], {
      FLOW_SKILLS: join(ws.dir, "no-skills"),
    });
    try {
      await page.getByRole("region", { name: "Workers" }).locator("tbody tr").first().waitFor();
      await page
        .getByRole("region", { name: /Queued runs: passed/ })
        .locator("tr", { hasText: queued ?? "?" })
        .waitFor();
      await browser.screenshot("console-queue");
    } finally {
      await worker.stop("SIGTERM");
    }

    await page.goto(`${flowConsole.url}#/health`);
    await page.locator("tr", { hasText: "memory__create_entities" }).waitFor();
    await page.getByRole("button", { name: "Lock guard, stop console-started runs" }).click();
    await page.locator(".status", { hasText: "locked" }).first().waitFor();
    await browser.screenshot("console-health");
    await page.getByRole("button", { name: "Unlock" }).click();
    await page.locator(".status", { hasText: "unlocked" }).waitFor();
  });

  it("shows a consultation nested under the step that asked for it, with its own calls", async () => {
    const { page } = browser;
    // The mesh fixtures: development-agent's agentConfig asks quality-agent, whose calls are scripted.
    const mws = flowWorkspace({
      agents: [join(ROOT, "tests/fixtures/agents-mesh"), join(ROOT, "agents/security-agent")].join(delimiter),
    });
    const append = (line: string) => ({ tool: "slow__append_line", args: { file: "log.txt", line } });
    let meshConsole: FlowConsole | undefined;
    try {
      mws.writePrd([
        {
          mcpTools: { step1: ["slow"] },
          calls: { step1: [append("step")] },
          consult: { "development-agent": ["quality-agent"] },
          agentConfig: {
            "development-agent": { ask: ["quality-agent"] },
            "quality-agent": { calls: [append("consulted")] },
          },
        },
      ]);
      const run = await mws.flow(["run", "prd.json", "--run-id", "consulted"]);
      expect(run.code, run.stderr).toBe(0);
      meshConsole = await startFlowConsole([], { cwd: mws.dir });
      await page.goto(`${meshConsole.url}#/runs/consulted`);
      await page.locator('details[data-story="US-001"] > summary').click();
      await page.locator('details[data-step="1"] > summary').click();
      const consult = page.locator('li.consult[data-consult="US-001/step1/quality-agent.1"]');
      await consult.waitFor();
      expect(await consult.locator("summary").first().textContent()).toMatch(
        /consult quality-agent \(asked by development-agent\)/,
      );
      await consult.locator("summary").first().click();
      // The consultation's call is under it, not among the step's own.
      await consult.locator("li.call", { hasText: "slow__append_line" }).waitFor();
      expect(await page.locator('details[data-step="1"] > ol.items > li.call').count()).toBe(1);
      await browser.screenshot("console-consultation");
    } finally {
      await meshConsole?.stop();
    }
  });

  it("shows a model's turns with the tool calls it asked for and their arguments", async () => {
    const { page } = browser;
    const key = "sk-test-meshflow";
    const model = await ScriptedModelServer.start({ script: [], apiKey: key });
    const mws = flowWorkspace({
      agents: join(ROOT, "agents"),
      env: { FLOW_SKILLS: join(ROOT, "skills"), FLOW_MODEL_BASE_URL: model.baseUrl, OPENAI_API_KEY: key },
    });
    let modelConsole: FlowConsole | undefined;
    try {
      model.enqueue(
        {
          toolCalls: [
            { name: "filesystem__write_file", input: { path: join(mws.files, "hello.txt"), content: "hello\n" } },
          ],
        },
        { toolCalls: [{ name: "step_pass", input: { summary: "wrote hello.txt" } }] },
      );
      mws.writePrd([
        { mavenSteps: [7], mcpTools: { step7: ["filesystem"] }, model: "openai:gpt-test", calls: undefined },
      ]);
      const run = await mws.flow(["run", "prd.json", "--run-id", "thinking"]);
      expect(run.code, run.stderr).toBe(0);
      modelConsole = await startFlowConsole([], { cwd: mws.dir });
      await page.goto(`${modelConsole.url}#/runs/thinking`);
      await page.locator('details[data-story="US-001"] > summary').click();
      await page.locator('details[data-step="7"] > summary').click();
      const turn = page.locator("li.turn", { hasText: "model turn 1" });
      await turn.locator("summary").click();
      const said = await turn.locator("dl").textContent();
      expect(said).toContain("Call filesystem__write_file");
      expect(said).toContain("hello.txt");
      await page.locator("li.call", { hasText: "filesystem__write_file" }).waitFor();
      await browser.screenshot("console-model-turns");
    } finally {
      await modelConsole?.stop();
      await model.close();
    }
  });
});
