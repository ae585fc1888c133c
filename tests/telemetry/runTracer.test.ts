import type { RunEvent } from "@meshflow/core";
import { Tracing } from "@meshflow/telemetry";
import { afterEach, describe, expect, it } from "vitest";
import { type OtlpReceiver, startOtlpReceiver } from "../helpers/otlpReceiver.js";

// The spans of a run's events, exported over real OTLP/HTTP (JSON) to a receiver in the test.

let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

const base = { runId: "r1" };
const t = (ms: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, 0, ms)).toISOString();

describe("Tracing.runSink", () => {
  it("gives model turns the GenAI attributes and refusals and failures an ERROR status with an event", async () => {
    receiver = await startOtlpReceiver();
    const tracing = await Tracing.start({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "unit",
      },
    });
    if (!tracing) throw new Error("tracing did not start");
    const sink = tracing.runSink();
    const events: RunEvent[] = [
      { ...base, time: t(0), type: "run.started", prd: "prd.json", stories: ["US-001"] },
      { ...base, time: t(1), type: "story.started", storyId: "US-001" },
      {
        ...base,
        time: t(2),
        type: "step.started",
        storyId: "US-001",
        step: 1,
        specialist: "development-agent",
        tools: 3,
      },
      {
        ...base,
        time: t(40),
        type: "model.turn",
        storyId: "US-001",
        step: 1,
        turn: 1,
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        inputTokens: 1200,
        outputTokens: 80,
        cacheReadTokens: 1000,
        cacheWriteTokens: 150,
        costUsd: 0.00202,
        latencyMs: 30,
        toolCalls: ["fs__write_file"],
      },
      {
        ...base,
        time: t(41),
        type: "tool.refused",
        storyId: "US-001",
        step: 1,
        tool: "fs__write_file",
        code: "not_in_repertoire",
        message: "fs__write_file is not in step 1's repertoire",
      },
      {
        ...base,
        time: t(50),
        type: "step.finished",
        storyId: "US-001",
        step: 1,
        status: "failed",
        summary: "no write",
        tokens: { input: 1200, output: 80, cacheRead: 1000, cacheWrite: 150, turns: 1, costUsd: 0.00202 },
      },
      { ...base, time: t(51), type: "story.finished", storyId: "US-001", status: "failed", summary: "step 1 failed" },
      { ...base, time: t(52), type: "run.finished", status: "failed", passed: 0, failed: 1, blocked: 0 },
    ];
    for (const event of events) sink(event);
    await tracing.shutdown();

    const byName = new Map(receiver.spans.map((s) => [s.name, s]));
    const chat = byName.get("chat claude-sonnet-4-5");
    expect(chat?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "anthropic",
      "gen_ai.system": "anthropic",
      "gen_ai.request.model": "claude-sonnet-4-5",
      "gen_ai.usage.input_tokens": 1200,
      "gen_ai.usage.output_tokens": 80,
      "gen_ai.usage.cache_read.input_tokens": 1000,
      "gen_ai.usage.cache_creation.input_tokens": 150,
      "meshflow.model.cost_usd": 0.00202,
    });
    const step = byName.get("step 1 development-agent");
    expect(step?.attributes).toMatchObject({
      "gen_ai.usage.cache_read.input_tokens": 1000,
      "meshflow.step.cost_usd": 0.00202,
    });
    expect(chat?.parentSpanId).toBe(step?.spanId);
    const refused = byName.get("tool fs__write_file");
    expect(refused).toMatchObject({ parentSpanId: step?.spanId, status: 2, events: ["tool.refused"] });
    expect(refused?.attributes["meshflow.tool.code"]).toBe("not_in_repertoire");
    expect(step?.status).toBe(2);
    expect(byName.get("run prd.json")).toMatchObject({ service: "unit", parentSpanId: "", status: 2 });
  });

  it("starts nothing without an endpoint", async () => {
    expect(await Tracing.start({ env: {} })).toBeUndefined();
  });
});
