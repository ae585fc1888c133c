import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startFlowConsole } from "../helpers/flowConsole.js";
import { until } from "../helpers/flowWorker.js";
import { flowWorkspace } from "../helpers/flowWorkspace.js";
import { runFlow } from "../helpers/runFlow.js";

// `flow console` without a browser: its help, the token rule it shares with `flow serve --http`,
// and the JSON API's Resume, which runs the real `flow resume`.

const TOKEN = "0123456789abcdef0123456789abcdef";

describe("flow console", () => {
  it("shows its defaults and the token rule in --help", async () => {
    const help = await runFlow(["console", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("(default: 4100)");
    expect(help.stdout).toContain('(default: "127.0.0.1")');
    expect(help.stdout).toContain("FLOW_SERVE_TOKEN");
    expect(help.stdout).toContain("Exit codes:");
    // Every bound of the Start a run form's PRD search: the two options with their defaults, the others said.
    const text = help.stdout.replace(/\s+/g, " ");
    expect(text).toContain(
      "--prd-depth <n> how many folders below this one the Start a run form looks in for PRDs (0: this folder only) (default: 4)",
    );
    expect(text).toContain(
      "--max-prds <n> most PRDs the Start a run form lists (it says when there are more) (default: 200)",
    );
    for (const bound of ["2,000 .json files", "8 MiB (8388608 bytes)", "first 500 story ids"])
      expect(text).toContain(bound);
  });

  it("refuses a --prd-depth or --max-prds that is not a whole number in range (exit 2), naming the option", async () => {
    const cases: Array<[string, string, string]> = [
      ["--prd-depth", "-1", '--prd-depth must be 0 or more, got "-1"'],
      ["--prd-depth", "deep", '--prd-depth must be 0 or more, got "deep"'],
      ["--prd-depth", "1.5", '--prd-depth must be 0 or more, got "1.5"'],
      ["--max-prds", "0", '--max-prds must be a positive integer, got "0"'],
      ["--max-prds", "many", '--max-prds must be a positive integer, got "many"'],
    ];
    for (const [option, value, message] of cases) {
      const result = await runFlow(["console", "--port", "0", option, value]);
      expect(result.code, `${option} ${value}`).toBe(2);
      expect(result.stderr).toContain(`option '${option} <n>' argument '${value}' is invalid. ${message}`);
    }
  });

  it("refuses a non-loopback host without a token (exit 2), as flow serve does", async () => {
    const result = await runFlow(["console", "--host", "0.0.0.0", "--port", "0"], { env: { FLOW_SERVE_TOKEN: "" } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("refusing to serve on 0.0.0.0 without a token");
  });

  it("asks every request for the token when one is set; a browser keeps it in a cookie", async () => {
    const ws = flowWorkspace();
    const flowConsole = await startFlowConsole([], { cwd: ws.dir, env: { FLOW_SERVE_TOKEN: TOKEN } });
    try {
      expect((await fetch(`${flowConsole.url}api/runs`)).status).toBe(401);
      const ok = await fetch(`${flowConsole.url}api/runs`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(await ok.json()).toEqual({ total: 0, runs: [] });
      const opened = await fetch(`${flowConsole.url}?token=${TOKEN}`, { redirect: "manual" });
      expect(opened.status).toBe(303);
      const cookie = (opened.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
      expect(cookie).toMatch(/^flow_console_token=/);
      expect((await fetch(`${flowConsole.url}api/info`, { headers: { cookie } })).status).toBe(200);
    } finally {
      await flowConsole.stop();
    }
  });

  it("resumes an interrupted run through POST /api/runs/:id/resume (the flow resume command)", async () => {
    const ws = flowWorkspace();
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
    const run = ws.spawnFlow(["run", "prd.json", "--json", "--run-id", "cut"]);
    await run.next((e) => e.type === "tool.called" && e.tool === "slow__wait_for");
    run.child.kill("SIGKILL");
    await run.exit;
    const flowConsole = await startFlowConsole([], { cwd: ws.dir });
    try {
      const runs = (await (await fetch(`${flowConsole.url}api/runs`)).json()) as { runs: Array<{ status: string }> };
      expect(runs.runs[0]?.status).toBe("interrupted");
      writeFileSync(join(ws.files, "release"), "");
      const post = (init: RequestInit = {}) =>
        fetch(`${flowConsole.url}api/runs/cut/resume`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{}",
          ...init,
        });
      // A form post from another page (no JSON content type) is refused.
      expect((await post({ headers: { "content-type": "text/plain" } })).status).toBe(400);
      const started = await post();
      expect(started.status).toBe(202);
      const detail = await until(
        "the resumed run to pass",
        async () => {
          const d = (await (await fetch(`${flowConsole.url}api/runs/cut`)).json()) as { run: { status: string } };
          return d.run.status === "passed" ? d : undefined;
        },
        60_000,
      );
      expect(detail.run.status).toBe("passed");
      expect(ws.read("log.txt")).toBe("after\n");
      const health = await until("the resume to end", async () => {
        const h = (await (await fetch(`${flowConsole.url}api/health`)).json()) as {
          ended: Array<{ runId: string; code: number | null }>;
        };
        return h.ended.length ? h : undefined;
      });
      expect(health.ended[0]).toMatchObject({ runId: "cut", code: 0 });
      // flow resume's rule, answered before anything starts: a finished run has nothing to resume.
      const again = await post();
      expect(again.status).toBe(400);
      expect(((await again.json()) as { error: { message: string } }).error.message).toContain("already finished");
      const missing = await fetch(`${flowConsole.url}api/runs/nope/resume`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(missing.status).toBe(404);
    } finally {
      await flowConsole.stop();
    }
  });
});
