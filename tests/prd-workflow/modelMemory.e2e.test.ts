import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ScriptedModelServer } from "@meshflow/model/testing";
import { afterEach, describe, expect, it } from "vitest";
import { flowWorkspace } from "../helpers/flowWorkspace.js";

// A model-driven step is told what the run remembers: the scripted model server (OpenAI wire format
// over real HTTP, through the real @ai-sdk/openai provider) records the request the step sent.

const KEY = "sk-test-meshflow";
const AGENTS = fileURLToPath(new URL("./agents", import.meta.url));
let server: ScriptedModelServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("the memory of a model-driven step", () => {
  it("has the PRD's finished stories and their learnings in the model's first message", async () => {
    server = await ScriptedModelServer.start({ script: [], apiKey: KEY });
    server.enqueue({ toolCalls: [{ name: "step_pass", input: { summary: "used the learning" } }] });
    const ws = flowWorkspace({
      agents: AGENTS,
      env: {
        FLOW_MODEL_BASE_URL: server.baseUrl,
        OPENAI_API_KEY: KEY,
        FLOW_MODEL_API_KEY: undefined,
        FLOW_MODEL: undefined,
      },
    });
    ws.writePrd([
      {
        title: "Login",
        mcpTools: { step1: ["filesystem"] },
        calls: {
          step1: [{ tool: "filesystem__write_file", args: { path: join(ws.files, "login.ts"), content: "x\n" } }],
        },
        agentConfig: { "development-agent": { learn: "sessions live in src/auth" } },
      },
      { title: "Logout", mcpTools: { step1: ["filesystem"] }, model: "openai:gpt-test" },
    ]);
    const run = await ws.flow(["run", "prd.json", "--json"]);
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests).toHaveLength(1);
    const message = server.requests[0]?.messages[0]?.text ?? "";
    expect(message).toContain("## Finished stories (newest first)\n- prd.json US-001 Login: passed: all steps passed");
    expect(message).toContain(
      "## Learnings from earlier stories (newest first)\n- prd.json US-001: sessions live in src/auth",
    );
  });
});
