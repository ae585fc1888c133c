import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RunEvent } from "@meshflow/core";
import { ScriptedModelServer, type ScriptedReply } from "@meshflow/model/testing";
import { afterEach, describe, expect, it } from "vitest";
import { parseEvents } from "../helpers/flowWorkspace.js";
import { modelWorkspace as scriptedWorkspace } from "../helpers/modelWorkspace.js";

// `flow run` with the shipped specialists thinking through a model: the model is played by a scripted
// server speaking the OpenAI Chat Completions wire format over real HTTP, reached through the real
// @ai-sdk/openai provider; the tools are the real filesystem and memory servers and our slow server.

const KEY = "sk-test-meshflow";
let server: ScriptedModelServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function modelWorkspace(script: ScriptedReply[]) {
  server = await ScriptedModelServer.start({ script, apiKey: KEY });
  const ws = scriptedWorkspace(server, KEY);
  return { ws, server };
}

const call = (name: string, input: Record<string, unknown>) => ({ toolCalls: [{ name, input }] });
const pass = (summary: string) => call("step_pass", { summary });
const types = (events: RunEvent[]) => events.map((e) => e.type);

/** A story for the development agent (step 7) on the filesystem server, with a gate that checks hello.txt. */
function helloStory(files: string, extra: Record<string, unknown> = {}) {
  return {
    title: "Say hello",
    description: "As a user I want a hello file.",
    acceptanceCriteria: ["files/hello.txt contains hello"],
    mavenSteps: [7],
    mcpTools: { step7: ["filesystem"] },
    model: "openai:gpt-test",
    verify: [
      {
        name: "hello",
        run: [
          process.execPath,
          "-e",
          `process.exit(require("fs").readFileSync(${JSON.stringify(join(files, "hello.txt"))}, "utf8") === "hello\\n" ? 0 : 1)`,
        ],
      },
    ],
    ...extra,
  };
}

describe("flow run with a model", () => {
  it("the model writes a file through the filesystem server, the gate passes, every turn is an event with tokens", async () => {
    const { ws, server } = await modelWorkspace([]);
    server.enqueue(
      call("filesystem__write_file", { path: join(ws.files, "hello.txt"), content: "hello\n" }),
      pass("wrote hello.txt"),
    );
    ws.writePrd([helloStory(ws.files)]);
    const run = await ws.flow(["run", "prd.json", "--json"]);
    expect(run.stderr).not.toContain(KEY);
    expect(run.code).toBe(0);
    expect(ws.read("hello.txt")).toBe("hello\n");
    const events = parseEvents(run.stdout);
    const turns = events.filter((e) => e.type === "model.turn");
    expect(turns).toHaveLength(2);
    expect(turns[0]).toMatchObject({
      provider: "openai",
      model: "gpt-test",
      turn: 1,
      toolCalls: ["filesystem__write_file"],
    });
    const step = events.find((e) => e.type === "step.finished");
    expect(step).toMatchObject({ status: "passed", tokens: { turns: 2 } });
    expect(events.find((e) => e.type === "run.finished")).toMatchObject({ status: "passed", tokens: { turns: 2 } });
    expect(JSON.parse(readFileSync(ws.prd, "utf8")).userStories[0].passes).toBe(true);

    // What the model was sent: the story, the repertoire as tools, the finishing tools, the tool result.
    const first = server.requests[0];
    expect(first?.system).toContain("development-agent");
    expect(first?.messages[0]?.text).toContain("As a user I want a hello file.");
    expect(first?.messages[0]?.text).toContain("files/hello.txt contains hello");
    const offered = first?.tools.map((t) => t.name) ?? [];
    expect(offered).toEqual(expect.arrayContaining(["filesystem__write_file", "step_pass", "step_fail", "step_block"]));
    expect(offered.filter((n) => n.startsWith("memory__"))).toEqual([]);
    expect(server.requests[1]?.toolResults[0]?.text).toContain("Successfully wrote");
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);

    // flow status shows the tokens per step, story and run; the journal and events never hold the key.
    const status = await ws.flow(["status", "--json"]);
    const report = JSON.parse(status.stdout);
    expect(report.run.tokens.turns).toBe(2);
    expect(report.stories[0].tokens.turns).toBe(2);
    expect(report.stories[0].steps[0].tokens.turns).toBe(2);
    const runDir = join(ws.dir, ".flow/runs", report.run.runId);
    for (const file of ["events.ndjson", "journal.ndjson", "run.json", "log.ndjson"])
      if (existsSync(join(runDir, file))) expect(readFileSync(join(runDir, file), "utf8")).not.toContain(KEY);
  });

  it("a call outside the step's repertoire is refused, the model reads the refusal and goes on", async () => {
    const { ws, server } = await modelWorkspace([]);
    server.enqueue(
      call("memory__read_graph", {}),
      call("filesystem__write_file", { path: join(ws.files, "hello.txt"), content: "hello\n" }),
      pass("wrote hello.txt after the refusal"),
    );
    ws.writePrd([helloStory(ws.files)]);
    const run = await ws.flow(["run", "prd.json", "--json"]);
    expect(run.code).toBe(0);
    const events = parseEvents(run.stdout);
    expect(
      events.find((e) => e.type === "tool.refused"),
      JSON.stringify(events),
    ).toMatchObject({
      tool: "memory__read_graph",
      code: "not_in_repertoire",
    });
    expect(server.requests[1]?.toolResults[0]?.text).toContain("not_in_repertoire");
  });

  it("a model that never calls a finishing tool gets one reminder, then the step is blocked (model_no_outcome)", async () => {
    const { ws, server } = await modelWorkspace([{ text: "I think it is fine." }, { text: "Really, it is fine." }]);
    ws.writePrd([helloStory(ws.files)]);
    const run = await ws.flow(["run", "prd.json", "--json"]);
    expect(run.code).toBe(1);
    const step = parseEvents(run.stdout).find((e) => e.type === "step.finished");
    expect(step).toMatchObject({ status: "blocked" });
    expect(step?.type === "step.finished" && step.summary).toContain("model_no_outcome");
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.messages.at(-1)?.text).toContain("step_pass, step_fail or step_block");
    expect(JSON.parse(readFileSync(ws.prd, "utf8")).userStories[0].passes).toBe(false);
  });

  it("a step that runs out of turns is blocked with budget_exhausted and the usage so far", async () => {
    const { ws, server } = await modelWorkspace([]);
    const list = call("filesystem__list_directory", { path: ws.files });
    server.enqueue(list, list, list);
    ws.writePrd([helloStory(ws.files)]);
    const run = await ws.flow(["run", "prd.json", "--json", "--max-turns", "2"]);
    expect(run.code).toBe(1);
    const step = parseEvents(run.stdout).find((e) => e.type === "step.finished");
    expect(step?.type === "step.finished" && step.summary).toMatch(/budget_exhausted: --max-turns 2 reached \(2 turn/);
    expect(server.requests).toHaveLength(2);
  });

  it("the security specialist's scan fails the step whatever the model claimed", async () => {
    const { ws, server } = await modelWorkspace([pass("no secrets here")]);
    writeFileSync(join(ws.files, "deploy.sh"), 'export AWS_ACCESS_KEY_ID="AKIAIOSFODNN7EXAMPLE"\n');
    ws.writePrd([
      {
        title: "Review",
        mavenSteps: [8],
        mcpTools: { step8: ["filesystem"] },
        model: "openai:gpt-test",
        agentConfig: { "security-agent": { paths: [ws.files] } },
      },
    ]);
    const run = await ws.flow(["run", "prd.json", "--json"]);
    const step = parseEvents(run.stdout).find((e) => e.type === "step.finished");
    expect(server.requests).toHaveLength(1);
    expect(step).toMatchObject({ status: "failed" });
    expect(run.code).toBe(1);
  });

  it("a development step whose model claims success without changing anything fails", async () => {
    const { ws, server } = await modelWorkspace([]);
    server.enqueue(call("filesystem__list_directory", { path: ws.files }), pass("all done"));
    ws.writePrd([helloStory(ws.files)]);
    const run = await ws.flow(["run", "prd.json", "--json"]);
    expect(run.code).toBe(1);
    const step = parseEvents(run.stdout).find((e) => e.type === "step.finished");
    expect(step).toMatchObject({ status: "failed" });
    expect(step?.type === "step.finished" && step.summary).toContain(
      "none of its calls that change anything succeeded",
    );
  });

  it("a missing API key stops the run before the first story with exit 3, naming the variable", async () => {
    const { ws, server } = await modelWorkspace([]);
    ws.writePrd([helloStory(ws.files)]);
    const run = await ws.flow(["run", "prd.json"], { OPENAI_API_KEY: undefined });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("OPENAI_API_KEY");
    expect(server.requests).toHaveLength(0);
  });

  it("an unreachable model endpoint stops the run before the first story with exit 3, naming the URL", async () => {
    const { ws, server } = await modelWorkspace([]);
    const url = server.baseUrl;
    await server.close();
    ws.writePrd([helloStory(ws.files)]);
    const run = await ws.flow(["run", "prd.json"]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(url);
  });

  it("kill -9 mid-step, then flow resume: recorded turns are not sent again and no tool runs twice", async () => {
    const { ws, server } = await modelWorkspace([
      call("slow__append_line", { file: "log.txt", line: "one" }),
      call("slow__wait_for", { file: "release" }),
    ]);
    ws.writePrd([{ ...helloStory(ws.files), mcpTools: { step7: ["slow"] }, verify: [] }]);
    const run = ws.spawnFlow(["run", "prd.json", "--json", "--run-id", "killed"]);
    await run.next((e) => e.type === "tool.called" && e.tool === "slow__wait_for");
    run.child.kill("SIGKILL");
    await run.exit;
    expect(ws.read("log.txt")).toBe("one\n");
    expect(server.requests).toHaveLength(2);

    writeFileSync(join(ws.files, "release"), "");
    server.enqueue(pass("appended one line"));
    const resumed = await ws.flow(["resume", "killed", "--json"]);
    expect(resumed.code).toBe(0);
    // Only the third turn went to the model; the first two were replayed from the journal.
    expect(server.requests).toHaveLength(3);
    expect(ws.read("log.txt")).toBe("one\n");
    const events = parseEvents(resumed.stdout);
    const replayedTurns = events
      .filter((e) => e.type === "model.turn" && e.replayed)
      .map((e) => e.type === "model.turn" && e.turn);
    expect(replayedTurns).toEqual([1, 2]);
    const called = events.filter((e) => e.type === "tool.called").map((e) => e.type === "tool.called" && e.tool);
    // The read-only wait whose outcome was unknown ran again; the append was replayed, not run.
    expect(called).toEqual(["slow__wait_for"]);
    expect(types(events)).toContain("run.finished");
  });

  it("--record then --replay with the model server stopped gives the same outcome; a changed story is replay_mismatch", async () => {
    const { ws, server } = await modelWorkspace([]);
    server.enqueue(
      call("filesystem__write_file", { path: join(ws.files, "hello.txt"), content: "hello\n" }),
      pass("wrote hello.txt"),
    );
    const cassette = join(ws.dir, "story.cassette.json");
    const prdText = ws.writePrd([helloStory(ws.files)]);
    const recorded = await ws.flow(["run", "prd.json", "--json", "--record", cassette]);
    expect(recorded.code).toBe(0);
    expect(JSON.parse(readFileSync(cassette, "utf8")).turns).toHaveLength(2);
    await server.close();

    rmSync(join(ws.files, "hello.txt"));
    writeFileSync(ws.prd, prdText);
    const replayed = await ws.flow(["run", "prd.json", "--json", "--replay", cassette], {
      OPENAI_API_KEY: undefined,
      FLOW_MODEL_BASE_URL: undefined,
    });
    expect(replayed.code).toBe(0);
    expect(ws.read("hello.txt")).toBe("hello\n");
    const events = parseEvents(replayed.stdout);
    expect(events.filter((e) => e.type === "model.turn" && e.replayed)).toHaveLength(2);
    expect(events.find((e) => e.type === "step.finished")).toMatchObject({ status: "passed" });

    ws.writePrd([helloStory(ws.files, { description: "As a user I want a hello file, loudly." })]);
    const changed = await ws.flow(["run", "prd.json", "--json", "--replay", cassette], { OPENAI_API_KEY: undefined });
    expect(changed.code).toBe(1);
    const step = parseEvents(changed.stdout).find((e) => e.type === "step.finished");
    expect(step).toMatchObject({ status: "blocked" });
    expect(step?.type === "step.finished" && step.summary).toMatch(/replay_mismatch: turn 1 of US-001 step 7/);
  });

  it("--dry-run names each step's model and the size of its first request, calling nothing", async () => {
    const { ws, server } = await modelWorkspace([]);
    ws.writePrd([helloStory(ws.files)]);
    const dry = await ws.flow(["run", "prd.json", "--dry-run", "--json"]);
    expect(dry.code).toBe(0);
    const step = JSON.parse(dry.stdout).stories[0].steps[0];
    expect(step.model).toMatchObject({ name: "openai:gpt-test" });
    expect(step.model.promptBytes).toBeGreaterThan(100);
    expect(step.model.toolBytes).toBeGreaterThan(100);
    expect(server.requests).toHaveLength(0);
  });
});
