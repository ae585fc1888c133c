import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ScriptedModelServer } from "@meshflow/model/testing";
import { afterEach, describe, expect, it } from "vitest";
import { flowWorkspace, parseEvents } from "../helpers/flowWorkspace.js";

// A cassette replays in the project it was recorded in, after later runs grew its story memory: the
// cassette keeps the run context its prompts were built from, and the replay uses it.

const KEY = "sk-test-meshflow";
const AGENTS = fileURLToPath(new URL("../prd-workflow/agents", import.meta.url));
let server: ScriptedModelServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A scripted story that notes a learning, then a model-backed one whose prompt holds the memory. */
async function project() {
  server = await ScriptedModelServer.start({ script: [], apiKey: KEY });
  const ws = flowWorkspace({
    agents: AGENTS,
    env: {
      FLOW_MODEL_BASE_URL: server.baseUrl,
      OPENAI_API_KEY: KEY,
      FLOW_MODEL_API_KEY: undefined,
      FLOW_MODEL: undefined,
    },
  });
  const stories = (description = "") =>
    ws.writePrd([
      {
        title: "Login",
        mcpTools: { step1: ["filesystem"] },
        calls: {
          step1: [{ tool: "filesystem__write_file", args: { path: join(ws.files, "login.ts"), content: "x\n" } }],
        },
        agentConfig: { "development-agent": { learn: "sessions live in src/auth" } },
      },
      { title: "Logout", description, mcpTools: { step1: ["filesystem"] }, model: "openai:gpt-test" },
    ]);
  return { ws, server, stories };
}

const noModel = { OPENAI_API_KEY: undefined, FLOW_MODEL_BASE_URL: undefined };

describe("a cassette replayed where it was recorded", () => {
  it("replays after two later runs grew the story memory, with the same outcome", async () => {
    const { ws, server: model, stories } = await project();
    const cassette = join(ws.dir, "logout.cassette.json");
    const text = stories();
    model.enqueue({ toolCalls: [{ name: "step_pass", input: { summary: "logged out" } }] });
    const recorded = await ws.flow(["run", "prd.json", "--json", "--record", cassette]);
    expect(recorded.code, recorded.stderr).toBe(0);
    // Two more runs: each adds its stories (and the learning) to the memory the prompt is built from.
    for (const summary of ["again", "once more"]) {
      writeFileSync(ws.prd, text);
      model.enqueue({ toolCalls: [{ name: "step_pass", input: { summary } }] });
      const later = await ws.flow(["run", "prd.json", "--json"]);
      expect(later.code, later.stderr).toBe(0);
    }
    const prompts = model.requests.map((r) => r.messages[0]?.text ?? "");
    expect(prompts[2]).not.toBe(prompts[0]);
    await model.close();

    writeFileSync(ws.prd, text);
    const replayed = await ws.flow(["run", "prd.json", "--json", "--replay", cassette], noModel);
    expect(replayed.code, replayed.stderr + replayed.stdout).toBe(0);
    const events = parseEvents(replayed.stdout);
    expect(events.filter((e) => e.type === "model.turn" && e.replayed)).toHaveLength(1);
    expect(
      events.filter((e) => e.type === "step.finished").map((e) => e.type === "step.finished" && e.summary),
    ).toEqual(["1 scripted call succeeded", "logged out"]);
    expect(JSON.parse(readFileSync(ws.prd, "utf8")).userStories.every((s: { passes: boolean }) => s.passes)).toBe(true);
  });

  it("names the part of the request that differs, with a short diff", async () => {
    const { ws, server: model, stories } = await project();
    const cassette = join(ws.dir, "logout.cassette.json");
    stories("Logs the user out.");
    model.enqueue({ toolCalls: [{ name: "step_pass", input: { summary: "logged out" } }] });
    expect((await ws.flow(["run", "prd.json", "--json", "--record", cassette])).code).toBe(0);
    await model.close();

    stories("Logs the user out everywhere.");
    const changed = await ws.flow(["run", "prd.json", "--json", "--replay", cassette], noModel);
    expect(changed.code).toBe(1);
    const step = parseEvents(changed.stdout).find((e) => e.type === "step.finished" && e.storyId === "US-002");
    const summary = step?.type === "step.finished" ? step.summary : "";
    expect(summary).toMatch(/replay_mismatch: turn 1 of US-002 step 1: the request differs .* in its story:/);
    expect(summary).toContain("- Logs the user out.");
    expect(summary).toContain("+ Logs the user out everywhere.");
  });
});
