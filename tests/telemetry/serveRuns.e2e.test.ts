import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { codeOf, dataOf, gatewayFixture, serveStdioClient, until } from "../helpers/flowServe.js";
import { FIXTURE_AGENTS, testStories } from "../helpers/flowWorkspace.js";
import { startOtlpReceiver } from "../helpers/otlpReceiver.js";

const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe("traces of runs flow serve starts", () => {
  it("a run started with flow_run_prd exports run → story → step → tool spans", async () => {
    const receiver = await startOtlpReceiver();
    cleanups.push(() => receiver.close());
    const fx = gatewayFixture();
    cleanups.push(() => fx.cleanup());
    writeFileSync(
      join(fx.dir, "prd.json"),
      `${JSON.stringify(
        {
          project: "Traced",
          userStories: testStories([
            {
              mcpTools: { step1: ["everything"] },
              calls: { step1: [{ tool: "everything__echo", args: { message: "hi" } }] },
            },
          ]),
        },
        null,
        2,
      )}\n`,
    );
    const s = await serveStdioClient([], {
      cwd: fx.dir,
      clientName: "cline",
      env: {
        FLOW_AGENTS: FIXTURE_AGENTS,
        FLOW_HOME: join(fx.dir, ".flow"),
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "mf-serve",
      },
    });
    const refused = await s.call("flow_run_prd", { prd: "prd.json" });
    expect(codeOf(refused)).toBe("confirmation_required");
    const token = (dataOf(refused).error as { confirmationToken: string }).confirmationToken;
    const runId = String(dataOf(await s.call("flow_run_prd", { prd: "prd.json", confirmation_token: token })).runId);
    let status: unknown;
    await until(async () => {
      status = dataOf(await s.call("flow_run_status", { runId })).status;
      return status !== "running" && status !== "preflight";
    });
    expect(status).toBe("passed");
    // flow serve exports what it buffered when it ends.
    await s.close();
    await until(() => receiver.spans.some((span) => span.name === "tool everything__echo"));

    const run = receiver.spans.find((span) => span.name === "run prd.json");
    expect(run).toMatchObject({ service: "mf-serve", parentSpanId: "" });
    expect(run?.attributes["meshflow.run.id"]).toBe(runId);
    const story = receiver.spans.find((span) => span.name.startsWith("story "));
    expect(story?.parentSpanId).toBe(run?.spanId);
    const step = receiver.spans.find((span) => span.name.startsWith("step 1 "));
    expect(step?.parentSpanId).toBe(story?.spanId);
    const tool = receiver.spans.find((span) => span.name === "tool everything__echo");
    expect(tool?.parentSpanId).toBe(step?.spanId);
  }, 60_000);
});
