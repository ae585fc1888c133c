import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { flowWorkspace } from "../helpers/flowWorkspace.js";

describe("two flow runs on one PRD", () => {
  // Regression: the run lock was check-then-write and per run, not per PRD, so two `flow run`s of one
  // PRD both ran every story and each non-idempotent call ran twice.
  it("runs one; the other exits 1 with prd_busy naming the run and its process", async () => {
    const ws = flowWorkspace();
    ws.writePrd([
      {
        mcpTools: { step1: ["slow"] },
        calls: {
          step1: [
            { tool: "slow__append_line_then_wait", args: { file: "log.txt", line: "once", waitFor: "release" } },
            { tool: "slow__append_line", args: { file: "log.txt", line: "after" } },
          ],
        },
      },
    ]);
    // A lock left by a killed run is taken over (its process is gone), by exactly one of the two.
    writeFileSync(join(ws.dir, ".prd.json.lock"), JSON.stringify({ runId: "killed", pid: 999999999 }));
    const runs = ["a", "b"].map((id) => ({ id, run: ws.spawnFlow(["run", "prd.json", "--json", "--run-id", id]) }));
    const first = await Promise.race(runs.map(({ id, run }) => run.exit.then((code) => ({ id, code }))));
    expect(first.code).toBe(1);
    const loser = runs.find((r) => r.id === first.id);
    const winner = runs.find((r) => r.id !== first.id);
    if (!loser || !winner) throw new Error("two runs expected");
    const refusal = loser.run.events as unknown as Array<{ error?: { code: string; message: string } }>;
    const error = refusal.find((e) => e.error)?.error;
    expect(error?.code).toBe("prd_busy");
    expect(error?.message).toContain(`run ${winner.id} (process ${winner.run.child.pid})`);
    writeFileSync(join(ws.files, "release"), "");
    expect(await winner.run.exit).toBe(0);
    expect(ws.read("log.txt")).toBe("once\nafter\n");
    expect(JSON.parse(readFileSync(ws.prd, "utf8")).userStories[0].notes).toContain(`run ${winner.id} `);
  });
});

describe("flow run of a PRD another process runs", () => {
  // Regression: the refusal came after the run had loaded the runtime and started the PRD's servers
  // (about 2.4 s); it is now answered before either (its time is measured in bench/, suite cli).
  it("is refused with prd_busy before any server starts", async () => {
    const ws = flowWorkspace();
    const marker = join(ws.dir, "server-started");
    const config = JSON.parse(readFileSync(join(ws.dir, ".mcp.json"), "utf8"));
    config.mcpServers.marker = {
      command: process.execPath,
      args: ["-e", `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "")`],
    };
    writeFileSync(join(ws.dir, ".mcp.json"), JSON.stringify(config));
    ws.writePrd([{ mcpTools: { step1: ["marker"] } }]);
    const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], { stdio: "ignore" });
    try {
      writeFileSync(join(ws.dir, ".prd.json.lock"), JSON.stringify({ runId: "elsewhere", pid: holder.pid }));
      const result = await ws.flow(["run", "prd.json", "--json"]);
      expect(result.code).toBe(1);
      expect(JSON.parse(result.stdout.trim())).toEqual({
        error: { code: "prd_busy", message: expect.stringContaining(`run elsewhere (process ${holder.pid})`) },
      });
      expect(result.stderr).toContain("flow resume elsewhere");
      expect(existsSync(marker)).toBe(false);
      expect(existsSync(join(ws.dir, ".flow", "runs"))).toBe(false);
    } finally {
      holder.kill();
    }
  });
});
