import { join } from "node:path";
import type { ScriptedModelServer } from "@meshflow/model/testing";
import { afterEach, describe, expect, inject, it } from "vitest";
import {
  CODING_AGENTS_BIN,
  codingAgentsInstalled,
  harnessCall,
  harnessWorkspace,
  KEY,
  turnRequests,
} from "../helpers/codingAgents.js";
import { type FlowWorker, startFlowWorker } from "../helpers/flowWorker.js";
import { finishedRun, queuedStatus } from "../helpers/queuedRuns.js";
import { ROOT } from "../helpers/runFlow.js";

// A queued run worked by a coding agent: `flow enqueue --harness` carries the harness with the job;
// the worker starts Claude Code for the step, serves it the step's tools, and the turns and the call
// are journaled in Redis under the run.

let worker: FlowWorker | undefined;
let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await worker?.stop("SIGTERM");
  await server?.close();
  worker = undefined;
  server = undefined;
});

describe.skipIf(!codingAgentsInstalled() && process.env.CI !== "true")(
  "queued runs with a harness",
  { timeout: 120_000 },
  () => {
    it("flow enqueue --harness claude-code: a worker's run has Claude Code write through meshflow's tools", async () => {
      const url = inject("redisUrl");
      const prefix = `harness-${process.pid}-${Date.now()}:`;
      const { ws, server: s, script, home } = await harnessWorkspace("claude-code");
      server = s;
      script.turns.push(
        {
          toolCalls: [
            harnessCall("claude-code", "filesystem__write_file", {
              path: join(ws.files, "q.txt"),
              content: "queued\n",
            }),
          ],
        },
        { toolCalls: [harnessCall("claude-code", "step_pass", { summary: "wrote q.txt" })] },
        { text: "Done." },
      );
      ws.writePrd([{ title: "Queued write", mavenSteps: [7], mcpTools: { step7: ["filesystem"] } }]);
      worker = await startFlowWorker(ws, url, ["--redis-prefix", prefix, "--model", "anthropic:claude-queued"], {
        FLOW_AGENTS: join(ROOT, "agents"),
        FLOW_SKILLS: join(ROOT, "skills"),
        PATH: `${CODING_AGENTS_BIN}:${process.env.PATH ?? ""}`,
        HOME: home,
        ANTHROPIC_API_KEY: KEY,
        FLOW_MODEL_BASE_URL: s.baseUrl,
      });
      const enqueued = await ws.flow([
        "enqueue",
        "prd.json",
        "--redis",
        url,
        "--redis-prefix",
        prefix,
        "--harness",
        "claude-code",
        "--json",
      ]);
      expect(enqueued.code, enqueued.stderr).toBe(0);
      const runId = (JSON.parse(enqueued.stdout).runs as Array<{ runId: string }>)[0]?.runId ?? "";
      const run = await finishedRun(url, runId, { prefix });
      expect(run.status).toBe("passed");
      expect(ws.read("q.txt")).toBe("queued\n");
      // The worker's Claude Code thought with the worker's model and was offered meshflow's tools.
      const turns = turnRequests(s);
      expect(turns.length).toBeGreaterThanOrEqual(2);
      expect(turns[0]?.model).toBe("claude-queued");
      expect(turns[0]?.tools.map((t) => t.name)).toContain("mcp__meshflow__filesystem__write_file");
      const status = await queuedStatus(ws, url, runId, prefix);
      expect(status.stories[0]?.tokens?.turns).toBeGreaterThanOrEqual(2);

      const refused = await ws.flow([
        "enqueue",
        "prd.json",
        "--redis",
        url,
        "--redis-prefix",
        prefix,
        "--harness",
        "amp",
      ]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('unknown harness "amp"');
    });
  },
);
