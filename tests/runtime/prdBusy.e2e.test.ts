import { readFileSync, writeFileSync } from "node:fs";
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
