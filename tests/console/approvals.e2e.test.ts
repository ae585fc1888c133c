import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, type TestBrowser } from "../helpers/browser.js";
import { type FlowConsole, startFlowConsole } from "../helpers/flowConsole.js";
import { flowWorkspace } from "../helpers/flowWorkspace.js";

// The console's Approve button as a person uses it: a real run paused at a destructive call (the
// `flow` binary, server-filesystem), `flow console` as a subprocess, Debian's chromium through
// playwright-core; then `flow resume` runs the approved call.

describe("flow console approvals", { timeout: 90_000 }, () => {
  const ws = flowWorkspace();
  let browser: TestBrowser;
  let flowConsole: FlowConsole;

  beforeAll(async () => {
    ws.writePrd([
      {
        mcpTools: { step1: ["filesystem"] },
        calls: { step1: [{ tool: "filesystem__write_file", args: { path: join(ws.files, "a.txt"), content: "a\n" } }] },
      },
    ]);
    const run = await ws.flow(["run", "prd.json", "--approve", "destructive", "--run-id", "waits"]);
    expect(run.code, run.stderr).toBe(4);
    flowConsole = await startFlowConsole(["--cache", join(ws.dir, "c.json")], {
      cwd: ws.dir,
      env: { FLOW_AGENTS: undefined, FLOW_SKILLS: undefined },
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await flowConsole?.stop();
  });

  it("approves a waiting call with its reason from the run page; flow resume then runs it once", async () => {
    const { page } = browser;
    await page.goto(`${flowConsole.url}#/runs/waits`);
    const waiting = page.locator('section[aria-label="Approvals"] li[data-key="waits/US-001/step1/1"]');
    await waiting.waitFor();
    expect(await waiting.textContent()).toContain("filesystem__write_file");
    expect(await waiting.locator("pre").textContent()).toContain("a.txt");
    await waiting.getByLabel("Reason").fill("looked at the path");
    await browser.screenshot("console-approval-waiting");
    await waiting.getByRole("button", { name: "Approve" }).click();
    await page.getByRole("status").filter({ hasText: "approved filesystem__write_file" }).waitFor();
    await page.locator(".approvals-decided li", { hasText: "looked at the path" }).waitFor();
    await browser.screenshot("console-approval-decided");

    const book = readFileSync(join(ws.dir, ".flow/runs/waits/approvals.ndjson"), "utf8").trim().split("\n");
    const decision = JSON.parse(book.at(-1) ?? "{}");
    expect(decision).toMatchObject({ type: "decided", approved: true, reason: "looked at the path" });
    expect(decision.by).toMatch(/^flow console /);

    expect(existsSync(join(ws.files, "a.txt"))).toBe(false);
    const resumed = await ws.flow(["resume", "waits"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(ws.read("a.txt")).toBe("a\n");
  });

  it("refuses a decision for arguments other than those the call waits with (409, approval_stale)", async () => {
    const other = flowWorkspace();
    other.writePrd([
      {
        mcpTools: { step1: ["filesystem"] },
        calls: {
          step1: [{ tool: "filesystem__write_file", args: { path: join(other.files, "b.txt"), content: "b\n" } }],
        },
      },
    ]);
    // The console reads its working folder's store: this run is in the console's.
    const run = await ws.flow(["run", other.prd, "--approve", "all", "--run-id", "stale"]);
    expect(run.code, run.stderr).toBe(4);
    const res = await fetch(`${flowConsole.url}api/runs/stale/approvals`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ key: "stale/US-001/step1/1", argsDigest: "sha256:0000", approved: true }),
    });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("approval_stale");
  });
});
