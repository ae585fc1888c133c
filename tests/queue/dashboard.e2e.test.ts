import { spawn } from "node:child_process";
import { describe, expect, inject, it } from "vitest";
import { flowWorkspace } from "../helpers/flowWorkspace.js";
import { enqueue } from "../helpers/queuedRuns.js";
import { freePort } from "../helpers/redisServer.js";
import { FLOW_BIN } from "../helpers/runFlow.js";

describe("flow dashboard", () => {
  it("serves Bull Board for the runs and calls queues on 127.0.0.1, and stops on SIGINT", async () => {
    const url = inject("redisUrl");
    const prefix = `dash-${process.pid}-${Date.now()}:`;
    const ws = flowWorkspace();
    ws.writePrd([{ mcpTools: { step1: ["slow"] }, calls: { step1: [] } }]);
    const [runId] = await enqueue(ws, url, ["prd.json", "--redis-prefix", prefix]);
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [FLOW_BIN, "dashboard", "--redis", url, "--redis-prefix", prefix, "--port", String(port)],
      { cwd: ws.dir, stdio: ["ignore", "pipe", "pipe"] },
    );
    const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString("utf8");
          if (out.includes("\n")) resolve(out.trim());
        });
        void exit.then((code) => reject(new Error(`flow dashboard exited ${code}`)));
      });
      expect(line).toBe(`dashboard: http://127.0.0.1:${port}/`);
      const page = await fetch(`http://127.0.0.1:${port}/`);
      expect(await page.text()).toContain(`<title>meshflow (${prefix})</title>`);
      const api = (await (await fetch(`http://127.0.0.1:${port}/api/queues`)).json()) as {
        queues: Array<{ name: string; counts: Record<string, number>; jobs: Array<{ id: string }> }>;
      };
      expect(api.queues.map((q) => q.name).sort()).toEqual(["calls", "runs"]);
      expect(api.queues.find((q) => q.name === "runs")?.counts.waiting).toBe(1);
    } finally {
      child.kill("SIGINT");
    }
    expect(await exit).toBe(0);
    expect(runId).toBeDefined();
  }, 30_000);
});
