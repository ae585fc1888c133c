import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, type TestBrowser } from "../helpers/browser.js";
import { type FlowConsole, startFlowConsole } from "../helpers/flowConsole.js";
import { until } from "../helpers/flowWorker.js";
import { flowWorkspace } from "../helpers/flowWorkspace.js";

// What a failed run's page and the Queue page say to someone new, in chromium: a console started
// without Redis, over a run whose test command and tool results wrote terminal colour codes.

const ESC = "\u001b";
/** What a test runner prints on a terminal: red rules around FAIL. */
const COLOURED = `${ESC}[31m⎯⎯⎯${ESC}[39m ${ESC}[1m${ESC}[41m FAIL ${ESC}[49m${ESC}[22m`;

describe("flow console's words", { timeout: 90_000 }, () => {
  const ws = flowWorkspace();
  let browser: TestBrowser;
  let flowConsole: FlowConsole;

  beforeAll(async () => {
    ws.writePrd([
      {
        mcpTools: { step1: ["memory"] },
        calls: {
          step1: [
            {
              tool: "memory__create_entities",
              args: { entities: [{ name: `${ESC}[32mcoloured-entity${ESC}[39m`, entityType: "x", observations: [] }] },
            },
          ],
        },
        verify: [
          { name: "tests", run: [process.execPath, "-e", `console.log(${JSON.stringify(COLOURED)}); process.exit(1)`] },
        ],
      },
    ]);
    const run = await ws.flow(["run", "prd.json", "--run-id", "coloured"]);
    expect(run.code).toBe(1);
    // Off a terminal flow run's own log has no escape codes either.
    expect(run.stdout).toContain("⎯⎯⎯  FAIL");
    expect(run.stdout).not.toContain(ESC);
    flowConsole = await startFlowConsole([], { cwd: ws.dir, env: { FLOW_REDIS_URL: undefined } });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await flowConsole?.stop();
  });

  it("shows a failed run's command output and tool results without raw colour codes, counts in the right number", async () => {
    // The page showed `[31m⎯⎯⎯[39m` three times: the gate's summary, its output tail and a tool result.
    const { page } = browser;
    await page.goto(`${flowConsole.url}#/runs/coloured`);
    await page.getByRole("heading", { name: /Run coloured/ }).waitFor();
    // Every disclosure open (a failed story opens by itself), so the text read below is all the page shows.
    await page.locator('details[data-story="US-001"]').waitFor({ state: "attached" });
    await page.locator("details").evaluateAll((all) => {
      for (const d of all) d.setAttribute("open", "");
    });
    await page.locator("li.call pre").waitFor();
    const text = (await page.locator("main").textContent()) ?? "";
    expect(text).toContain("⎯⎯⎯  FAIL");
    expect(text).toContain("coloured-entity");
    expect(text).not.toContain(ESC);
    expect(text).not.toMatch(/\[(31|39|32|41|49|1|22)m/);
    // "1 stories", "1 calls" before.
    expect(text).toContain("1 story ·");
    expect(text).toContain("1 call,");
    expect(text).not.toMatch(/\b1 (stories|calls|tools)\b/);
    // The button says what it does: it cannot stop a run another process started.
    expect(await page.getByRole("button", { name: "Lock guard, stop console-started runs" }).isVisible()).toBe(true);
    expect(text).toContain("Stop this run asks the flow run or flow resume running it, wherever it was started");
    await browser.screenshot("console-failed-run-text");
  });

  it("stops a run another process started, from the run's page; the run stays resumable", async () => {
    // The red "Emergency stop" locked the console's guard and stopped only the runs the console itself
    // resumed: a `flow run` from a terminal went on.
    const { page } = browser;
    ws.writePrd([
      {
        mcpTools: { step1: ["slow"] },
        calls: {
          step1: [
            { tool: "slow__wait_for", args: { file: "release" } },
            { tool: "slow__append_line", args: { file: "log.txt", line: "after" } },
          ],
        },
      },
    ]);
    const run = ws.spawnFlow(["run", "prd.json", "--json", "--run-id", "elsewhere"]);
    await run.next((e) => e.type === "tool.called" && e.tool === "slow__wait_for");
    await page.goto(`${flowConsole.url}#/runs/elsewhere`);
    const stop = page.getByRole("button", { name: "Stop this run" });
    await page.locator("h1", { hasText: "running" }).waitFor();
    await stop.click();
    await page.getByText("asked run elsewhere to stop").waitFor();
    await browser.screenshot("console-stop-run");
    // The run's own process takes the request (it looks for it twice a second), as it takes a Ctrl-C.
    await until("the run to take the stop request", async () =>
      run.stderr().includes("stopping (stopped from flow console)") ? true : undefined,
    );
    // The call in flight finishes and is recorded; nothing after it starts.
    writeFileSync(join(ws.files, "release"), "");
    expect(await run.exit).toBe(130);
    expect(run.stderr()).toContain("flow resume elsewhere");
    await page.locator("h1", { hasText: /interrupted|aborted/ }).waitFor();
    const resumed = await ws.flow(["resume", "elsewhere"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(ws.read("log.txt")).toBe("after\n");
  });

  it("says on the Queue page that no Redis is configured and how to give one", async () => {
    // It showed red text ending in a stray `usage` code.
    const { page } = browser;
    await page.goto(`${flowConsole.url}#/queue`);
    const note = page.getByText("No Redis is configured for this console.");
    await note.waitFor();
    const text = (await page.locator("main").textContent()) ?? "";
    expect(text).toContain("flow console --redis redis://127.0.0.1:6379");
    expect(text).not.toContain("usage");
    expect(await page.locator(".error").count()).toBe(0);
    await browser.screenshot("console-queue-no-redis");
  });
});
