import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, inject, it, onTestFinished } from "vitest";
import { flowWorkspace } from "../helpers/flowWorkspace.js";

// Regression: `flow enqueue --wait` writes the passes of its queued run back into the PRD, yet took no
// PRD lock, so it ran beside a `flow run` of the same PRD and each story's non-idempotent call ran
// twice. Root cause: only runs of the local store took the lock; --wait now holds it from before the
// run is queued until its marks are written.

let unique = 0;
const prefix = () => `enqlock-${process.pid}-${++unique}-${Date.now()}:`;
const waitStep = {
  mcpTools: { step1: ["slow"] },
  calls: {
    step1: [{ tool: "slow__append_line_then_wait", args: { file: "log.txt", line: "once", waitFor: "release" } }],
  },
};

describe("flow enqueue --wait and flow run of one PRD", () => {
  it("flow enqueue --wait beside a flow run of the PRD exits 1 with prd_busy and queues nothing", async () => {
    const ws = flowWorkspace();
    ws.writePrd([waitStep]);
    const run = ws.spawnFlow(["run", "prd.json", "--json", "--run-id", "local"]);
    onTestFinished(() => {
      run.child.kill("SIGKILL");
    });
    await run.next((e) => e.type === "run.started");
    const enqueued = await ws.flow([
      "enqueue",
      "prd.json",
      "--wait",
      "--json",
      "--redis",
      inject("redisUrl"),
      "--redis-prefix",
      prefix(),
    ]);
    expect(enqueued.code, enqueued.stderr).toBe(1);
    expect(enqueued.stdout).toMatch(/"code":\s*"prd_busy"/);
    expect(enqueued.stderr).toContain(`run local (process ${run.child.pid})`);
    expect(enqueued.stdout).not.toContain("runId");
    writeFileSync(join(ws.files, "release"), "");
    expect(await run.exit).toBe(0);
    expect(ws.read("log.txt")).toBe("once\n");
  });

  it("flow run beside a flow enqueue --wait of the PRD exits 1 with prd_busy naming it", async () => {
    const ws = flowWorkspace();
    ws.writePrd([waitStep]);
    // No worker: the queued run stays queued and --wait keeps waiting, holding the PRD.
    const waiting = ws.spawnFlow([
      "enqueue",
      "prd.json",
      "--wait",
      "--redis",
      inject("redisUrl"),
      "--redis-prefix",
      prefix(),
    ]);
    onTestFinished(() => {
      waiting.child.kill("SIGKILL");
    });
    await new Promise<void>((resolve, reject) => {
      waiting.child.stdout.on("data", (d: Buffer) => {
        if (d.toString("utf8").includes("queued")) resolve();
      });
      void waiting.exit.then((code) => reject(new Error(`flow enqueue exited ${code}: ${waiting.stderr()}`)));
    });
    const run = await ws.flow(["run", "prd.json", "--json"]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/"code":\s*"prd_busy"/);
    expect(run.stdout).toContain(`flow enqueue --wait (process ${waiting.child.pid})`);
  });
});
