import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, type TestBrowser } from "../helpers/browser.js";
import { type FlowConsole, startFlowConsole } from "../helpers/flowConsole.js";
import { FIXTURE_AGENTS, flowWorkspace, testStories } from "../helpers/flowWorkspace.js";

// A run started from the console's page whose `flow run` ends before it writes anything to the run
// store (here: its story names an MCP server the config does not have), as a user meets it in
// chromium. The run's page said "run not found" and nothing else; it now says the run ended before it
// started, with the exit code and the end of what flow run wrote on stderr, as text. Likewise the page
// of an interrupted run whose Resume from the console failed at once showed only the run, unchanged.

/** A server name that is markup: shown as text, it never becomes an element on the page. */
const MARKUP = "<img src=x onerror=alert(1)>";

describe("flow console: a run that ended before it started", { timeout: 120_000 }, () => {
  const ws = flowWorkspace();
  let browser: TestBrowser;
  let flowConsole: FlowConsole;

  beforeAll(async () => {
    ws.writePrd([{ mcpTools: { step1: [MARKUP] } }]);
    flowConsole = await startFlowConsole([], {
      cwd: ws.dir,
      env: { FLOW_AGENTS: FIXTURE_AGENTS, FLOW_SKILLS: join(ws.dir, "no-skills"), FLOW_HOME: undefined },
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await flowConsole?.stop();
  });

  it("shows the run as starting, then why it ended (exit code, stderr tail) instead of run not found; an unknown id stays not found", async () => {
    const { page } = browser;
    const dialogs: string[] = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(`${flowConsole.url}#/runs`);
    await page.locator("summary", { hasText: "Start a run" }).click();
    const form = page.getByRole("form", { name: "Start a run" });
    await form.getByLabel("PRD", { exact: true }).selectOption("prd.json");
    const started = page.waitForResponse((r) => r.url().endsWith("/api/runs") && r.request().method() === "POST");
    await form.getByRole("button", { name: "Start run" }).click();
    const { launched } = (await (await started).json()) as { launched: { runId: string; pid: number } };
    // Held before it reads the PRD, the command has written nothing yet: the page says it is starting.
    process.kill(launched.pid, "SIGSTOP");
    try {
      await page.waitForURL(`**/#/runs/${launched.runId}`);
      await page.locator("h1", { hasText: "starting" }).waitFor();
      expect(await page.locator("main").textContent()).toContain(`(pid ${launched.pid})`);
    } finally {
      process.kill(launched.pid, "SIGCONT");
    }
    // Live: the page learns that the command ended, without a reload.
    await page.locator("h1", { hasText: "not started" }).waitFor();
    const reason = page.getByRole("alert");
    expect(await reason.textContent()).toContain("The run ended before it started: flow run exited with code 1");
    expect(await page.locator("dd[data-exit-code]").getAttribute("data-exit-code")).toBe("1");
    const stderr = (await page.locator("pre.stderr-tail").textContent()) ?? "";
    expect(stderr).toContain(`$.userStories[0].mcpTools.step1[0]: unknown MCP server "${MARKUP}"`);
    expect(stderr).toContain("nothing was run");
    // The server's name is text on the page, never an element (nor a script that ran).
    expect(await page.locator("main img").count()).toBe(0);
    expect(dialogs).toEqual([]);
    expect(await page.locator("main").textContent()).not.toContain("run not found");
    await browser.screenshot("console-run-not-started");

    // The Health page lists the same ending, linked to this page.
    await page.goto(`${flowConsole.url}#/health`);
    await page.getByRole("link", { name: launched.runId }).click();
    await page.locator("h1", { hasText: "not started" }).waitFor();

    // A run the console never started is still not found.
    await page.goto(`${flowConsole.url}#/runs/20200101-000000-0000`);
    const missing = page.getByRole("alert").filter({ hasText: "run_not_found" });
    await missing.waitFor();
    expect(await page.locator("h1").count()).toBe(0);
  });

  it("shows on an interrupted run's page the exit code and stderr tail of a Resume that failed at once", async () => {
    const { page } = browser;
    const dialogs: string[] = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    // A PRD whose file name is markup: flow resume names it on stderr, and the page shows it as text.
    const name = `${MARKUP}.json`;
    const story = {
      mcpTools: { step1: ["slow"] },
      calls: { step1: [{ tool: "slow__wait_for", args: { file: "go" } }] },
    };
    writeFileSync(join(ws.dir, name), JSON.stringify({ project: "E2E", userStories: testStories([story]) }));
    const run = ws.spawnFlow(["run", name, "--json", "--run-id", "cut"]);
    await run.next((e) => e.type === "tool.called" && e.tool === "slow__wait_for");
    run.child.kill("SIGKILL");
    await run.exit;
    // flow resume reads the PRD first: without it, it ends at once (exit 2) and the run stays as it was.
    rmSync(join(ws.dir, name));
    await page.goto(`${flowConsole.url}#/runs/cut`);
    await page.locator("h1", { hasText: "interrupted" }).waitFor();
    const panel = page.getByRole("region", { name: "The console's last command for this run" });
    expect(await panel.count()).toBe(0);
    await page.getByRole("button", { name: "Resume" }).click();
    // Live: the page learns that the command ended, without a reload.
    await panel.waitFor();
    expect(await panel.locator("p.error").textContent()).toMatch(
      /^flow resume, started from this console for this run, exited with code 2 at /,
    );
    expect(await panel.locator("dd[data-exit-code]").getAttribute("data-exit-code")).toBe("2");
    const stderr = (await panel.locator("pre.stderr-tail").textContent()) ?? "";
    expect(stderr).toContain(`${join(ws.dir, name)}: cannot read PRD: no such file`);
    expect(await page.locator("main img").count()).toBe(0);
    expect(dialogs).toEqual([]);
    // The run itself is as it was: interrupted, its tree shown.
    await page.locator("h1", { hasText: "interrupted" }).waitFor();
    expect(await page.getByRole("list", { name: "Stories" }).locator("li").count()).toBeGreaterThan(0);
    await browser.screenshot("console-resume-failed");
  });
});
