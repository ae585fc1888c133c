import { join } from "node:path";
import { ScriptedModelServer } from "@meshflow/model/testing";
import { afterEach, describe, expect, it } from "vitest";
import { flowWorkspace } from "../helpers/flowWorkspace.js";
import { type OtlpReceiver, startOtlpReceiver } from "../helpers/otlpReceiver.js";
import { ROOT } from "../helpers/runFlow.js";

// `flow run` of a model-backed step, the model answered by the scripted model server over real HTTP
// through the real OpenAI provider, spans exported over real OTLP/HTTP (JSON).

const KEY = "sk-traced-test";
let server: ScriptedModelServer | undefined;
let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await server?.close();
  await receiver?.close();
  server = undefined;
  receiver = undefined;
});

describe("traces of a model-backed run", () => {
  it("each model turn is a chat span with the GenAI provider, model and token usage, beside the tool calls it made", async () => {
    server = await ScriptedModelServer.start({ apiKey: KEY });
    receiver = await startOtlpReceiver();
    const ws = flowWorkspace({ agents: join(ROOT, "agents"), env: { FLOW_SKILLS: join(ROOT, "skills") } });
    server.enqueue(
      { toolCalls: [{ name: "filesystem__write_file", input: { path: join(ws.files, "m.txt"), content: "m\n" } }] },
      { toolCalls: [{ name: "step_pass", input: { summary: "wrote m.txt" } }] },
    );
    ws.writePrd([{ title: "Traced write", mavenSteps: [7], mcpTools: { step7: ["filesystem"] } }]);
    const result = await ws.flow(
      ["run", "prd.json", "--model", "openai:gpt-traced", "--model-base-url", server.baseUrl],
      {
        OPENAI_API_KEY: KEY,
        FLOW_MODEL_API_KEY: undefined,
        FLOW_MODEL: undefined,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "flow-run",
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(ws.read("m.txt")).toBe("m\n");

    const spans = receiver.spans;
    const step = spans.find((s) => s.name.startsWith("step 7 "));
    const chats = spans.filter((s) => s.name === "chat gpt-traced");
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat.parentSpanId).toBe(step?.spanId);
      expect(chat.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.system": "openai",
        "gen_ai.request.model": "gpt-traced",
      });
      expect(chat.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
      expect(chat.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThanOrEqual(0);
    }
    const write = spans.find((s) => s.name === "tool filesystem__write_file");
    expect(write).toMatchObject({ parentSpanId: step?.spanId, service: "flow-run" });
    expect(spans.find((s) => s.name.startsWith("run "))?.status).toBe(1);
  }, 60_000);
});
