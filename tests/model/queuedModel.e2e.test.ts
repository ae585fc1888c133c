import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ScriptedModelServer } from "@meshflow/model/testing";
import { connectRedis, RedisCallJournal } from "@meshflow/queue";
import { afterEach, describe, expect, inject, it } from "vitest";
import { type FlowWorker, startFlowWorker } from "../helpers/flowWorker.js";
import { flowWorkspace } from "../helpers/flowWorkspace.js";
import { finishedRun, queuedStatus } from "../helpers/queuedRuns.js";
import { ROOT } from "../helpers/runFlow.js";

// A queued run whose story is worked by a model: `flow enqueue --model` carries the model with the job,
// the worker's model settings reach the scripted model server, and the turns are journaled in Redis
// under the run's journal like its tool calls.

const KEY = "sk-queued-test";
let worker: FlowWorker | undefined;
let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await worker?.stop("SIGTERM");
  await server?.close();
  worker = undefined;
  server = undefined;
});

describe("queued runs with a model", () => {
  it("flow enqueue --model: the worker's run thinks through the model, turns journaled in Redis, tokens in flow status", async () => {
    const url = inject("redisUrl");
    const prefix = `model-${process.pid}-${Date.now()}:`;
    server = await ScriptedModelServer.start({ apiKey: KEY });
    const ws = flowWorkspace({ agents: join(ROOT, "agents"), env: { FLOW_SKILLS: join(ROOT, "skills") } });
    server.enqueue(
      {
        toolCalls: [{ name: "filesystem__write_file", input: { path: join(ws.files, "q.txt"), content: "queued\n" } }],
      },
      { toolCalls: [{ name: "step_pass", input: { summary: "wrote q.txt" } }] },
    );
    ws.writePrd([{ title: "Queued write", mavenSteps: [7], mcpTools: { step7: ["filesystem"] } }]);
    worker = await startFlowWorker(ws, url, ["--redis-prefix", prefix, "--model-base-url", server.baseUrl], {
      FLOW_AGENTS: join(ROOT, "agents"),
      FLOW_SKILLS: join(ROOT, "skills"),
      OPENAI_API_KEY: KEY,
      FLOW_MODEL_API_KEY: undefined,
      FLOW_MODEL: undefined,
    });
    const enqueued = await ws.flow([
      "enqueue",
      "prd.json",
      "--redis",
      url,
      "--redis-prefix",
      prefix,
      "--model",
      "openai:gpt-queued",
      "--json",
    ]);
    expect(enqueued.code, enqueued.stderr).toBe(0);
    const runId = (JSON.parse(enqueued.stdout).runs as Array<{ runId: string }>)[0]?.runId ?? "";
    const run = await finishedRun(url, runId, { prefix });
    expect(run.status).toBe("passed");
    expect(ws.read("q.txt")).toBe("queued\n");
    expect(server.requests.map((r) => r.model)).toEqual(["gpt-queued", "gpt-queued"]);

    const status = await queuedStatus(ws, url, runId, prefix);
    expect(status.stories[0]?.tokens?.turns).toBe(2);

    const redis = await connectRedis(url, { role: "worker" });
    try {
      const journal = new RedisCallJournal(redis, runId, { prefix });
      const turn1 = await journal.get(`${runId}/US-001/step7/turn1`);
      expect(turn1).toMatchObject({ state: "finished", tool: "model:openai:gpt-queued" });
      expect(JSON.stringify(turn1?.result)).toContain("filesystem__write_file");
      expect(await journal.get(`${runId}/US-001/step7/turn2`)).toMatchObject({ state: "finished" });
    } finally {
      redis.disconnect();
    }
    const events = readFileSync(join(ws.dir, ".flow/runs", runId, "events.ndjson"), "utf8");
    expect(events.match(/"model\.turn"/g)).toHaveLength(2);
  });

  it("flow enqueue refuses a model name that is not <provider>:<model-id> (exit 2)", async () => {
    const ws = flowWorkspace();
    ws.writePrd([{ mavenSteps: [7] }]);
    const result = await ws.flow(["enqueue", "prd.json", "--redis", inject("redisUrl"), "--model", "gpt-4"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--model: "gpt-4" is not a model name');
  });
});
