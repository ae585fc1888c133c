import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ModelStepIO,
  type ModelTask,
  type ModelTurnReport,
  parseModelName,
  type RecordedTurn,
  type ToolDescriptor,
  type ToolResult,
} from "@meshflow/core";
import { afterEach, describe, expect, it } from "vitest";
import { AiSdkChatModel } from "./aiSdkModel.js";
import { Cassette, RecordingChatModel, ReplayingChatModel } from "./Cassette.js";
import { ModelLoop } from "./ModelLoop.js";
import { ScriptedModelServer } from "./testing/ScriptedModelServer.js";
import type { ScriptedReply } from "./testing/ScriptedReply.js";

// The loop against the scripted model server over real HTTP, through the real provider packages.

const echo: ToolDescriptor = {
  server: "everything",
  name: "echo",
  qualifiedName: "everything__echo",
  description: "Echoes its message",
  inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
  annotations: { readOnlyHint: true },
};
const dotted: ToolDescriptor = {
  server: "files",
  name: "read.file",
  qualifiedName: "files__read.file",
  description: "Reads a file",
  inputSchema: { type: "object", properties: { path: { type: "string" } } },
  annotations: {},
};

function task(extra: Partial<ModelTask> = {}): ModelTask {
  return {
    runId: "r1",
    storyId: "US-001",
    step: 7,
    specialist: "development-agent",
    instructions: "You implement stories.",
    stepPurpose: "Data layer.",
    story: {
      id: "US-001",
      title: "Greet",
      description: "As a user I want a greeting.",
      acceptanceCriteria: ["it greets"],
      notes: "",
    },
    earlier: [{ step: 1, specialist: "development-agent", status: "passed", summary: "foundation laid" }],
    tools: [echo, dotted],
    ...extra,
  };
}

/** An in-memory journal of turns and a call log, as the runtime provides them. */
function io(results: Record<string, ToolResult> = {}) {
  const turns = new Map<number, RecordedTurn>();
  const calls: Array<{ name: string; args: Record<string, unknown> }> = [];
  const reports: ModelTurnReport[] = [];
  const controller = new AbortController();
  const stepIO: ModelStepIO = {
    async call(name, args) {
      calls.push({ name, args });
      return results[name] ?? { content: [{ type: "text", text: `${name} ok` }] };
    },
    turns: {
      get: async (turn) => turns.get(turn),
      record: async (turn, recorded) => {
        turns.set(turn, recorded);
      },
    },
    onTurn: (report) => reports.push(report),
    signal: controller.signal,
  };
  return { stepIO, turns, calls, reports, controller };
}

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function loopOn(name: string, script: ScriptedReply[], budgets = {}) {
  server = await ScriptedModelServer.start({ script, apiKey: "k" });
  const chat = new AiSdkChatModel(parseModelName(name), { baseUrl: server.baseUrl, apiKey: "k", maxRetries: 0 });
  return { loop: new ModelLoop(chat, budgets), server, chat };
}

const toolCall = (name: string, input: Record<string, unknown>) => ({ toolCalls: [{ name, input }] });

describe("ModelLoop", () => {
  for (const name of ["openai:gpt-test", "anthropic:claude-test", "openai-compatible:llama-test"])
    it(`runs tool calls through the runtime and returns the model's claim (${name.split(":")[0]})`, async () => {
      const { loop, server } = await loopOn(name, [
        { ...toolCall("everything__echo", { message: "hi" }), usage: { inputTokens: 100, outputTokens: 10 } },
        { ...toolCall("step_pass", { summary: "echoed hi" }), usage: { inputTokens: 150, outputTokens: 5 } },
      ]);
      const { stepIO, calls, reports, turns } = io();
      const claim = await loop.run(task(), stepIO);
      expect(claim).toMatchObject({
        status: "passed",
        finish: "step_pass",
        summary: "echoed hi",
        usage: { inputTokens: 250, outputTokens: 15, turns: 2 },
        calls: [{ tool: "everything__echo", isError: false }],
      });
      expect(calls).toEqual([{ name: "everything__echo", args: { message: "hi" } }]);
      expect(reports.map((r) => [r.turn, r.replayed, r.toolCalls])).toEqual([
        [1, false, ["everything__echo"]],
        [2, false, ["step_pass"]],
      ]);
      expect(turns.size).toBe(2);
      const [first, second] = server.requests;
      expect(first?.system).toContain("development-agent");
      expect(first?.system).toContain("Data layer.");
      expect(first?.messages[0]?.text).toContain("As a user I want a greeting.");
      expect(first?.messages[0]?.text).toContain("step 1 (development-agent): passed: foundation laid");
      // Tool names providers refuse (a dot) are made safe; the finishing tools are always offered.
      expect(first?.tools.map((t) => t.name)).toEqual([
        "everything__echo",
        "files__read_file",
        "step_pass",
        "step_fail",
        "step_block",
      ]);
      expect(second?.toolResults).toMatchObject([{ text: "everything__echo ok" }]);
    });

  it("maps a sanitised name back to the qualified tool and reports a refused call to the model", async () => {
    const { loop, server } = await loopOn("openai:gpt-test", [
      toolCall("files__read_file", { path: "a.txt" }),
      toolCall("step_block", { summary: "cannot read" }),
    ]);
    const { stepIO, calls } = io({
      "files__read.file": { isError: true, code: "not_in_repertoire", content: [{ type: "text", text: "no" }] },
    });
    const claim = await loop.run(task(), stepIO);
    expect(calls.map((c) => c.name)).toEqual(["files__read.file"]);
    expect(claim).toMatchObject({ status: "blocked", finish: "step_block", summary: "cannot read" });
    expect(server.requests[1]?.toolResults[0]?.text).toContain("error (not_in_repertoire): no");
  });

  it("does not accept a finishing call while a call of the same turn failed", async () => {
    const { loop, server } = await loopOn("openai:gpt-test", [
      {
        toolCalls: [
          { name: "everything__echo", input: { message: "x" } },
          { name: "step_pass", input: { summary: "done" } },
        ],
      },
      toolCall("step_fail", { summary: "echo is broken" }),
    ]);
    const { stepIO } = io({ everything__echo: { isError: true, content: [{ type: "text", text: "boom" }] } });
    const claim = await loop.run(task(), stepIO);
    expect(claim).toMatchObject({ status: "failed", summary: "echo is broken" });
    expect(server.requests[1]?.toolResults.map((r) => r.text)).toEqual([
      "error: boom",
      expect.stringContaining("not accepted: 1 call(s) of this turn failed"),
    ]);
  });

  it("reminds once, then blocks with model_no_outcome", async () => {
    const { loop, server } = await loopOn("anthropic:claude-test", [{ text: "hmm" }, { text: "still hmm" }]);
    const claim = await loop.run(task(), io().stepIO);
    expect(claim).toMatchObject({ status: "blocked", code: "model_no_outcome" });
    expect(server.requests).toHaveLength(2);
  });

  it("blocks with budget_exhausted at --max-turns and at --max-step-tokens", async () => {
    const echoTurn = {
      ...toolCall("everything__echo", { message: "again" }),
      usage: { inputTokens: 60, outputTokens: 10 },
    };
    const turns = await loopOn("openai:gpt-test", [echoTurn, echoTurn, echoTurn], { maxTurns: 2 });
    const byTurns = await turns.loop.run(task(), io().stepIO);
    expect(byTurns).toMatchObject({ status: "blocked", code: "budget_exhausted", usage: { turns: 2 } });
    expect(byTurns.summary).toContain("--max-turns 2");
    await turns.server.close();

    const tokens = await loopOn("openai:gpt-test", [echoTurn, echoTurn, echoTurn], { maxStepTokens: 100 });
    const byTokens = await tokens.loop.run(task(), io().stepIO);
    expect(byTokens).toMatchObject({
      status: "blocked",
      code: "budget_exhausted",
      usage: { turns: 2, inputTokens: 120 },
    });
    expect(byTokens.summary).toContain("--max-step-tokens 100");
  });

  it("replays journaled turns without asking the model, then goes on live", async () => {
    const { loop, server } = await loopOn("openai:gpt-test", [
      toolCall("everything__echo", { message: "one" }),
      toolCall("step_pass", { summary: "live" }),
    ]);
    const first = io();
    await loop.run(task(), first.stepIO);
    expect(server.requests).toHaveLength(2);

    // A resumed step: turn 1 is in the journal, turn 2 is not.
    const resumed = io();
    const turn1 = first.turns.get(1);
    if (!turn1) throw new Error("turn 1 was not journaled");
    resumed.turns.set(1, turn1);
    server.enqueue(toolCall("step_pass", { summary: "live again" }));
    const claim = await loop.run(task(), resumed.stepIO);
    expect(claim.summary).toBe("live again");
    expect(server.requests).toHaveLength(3);
    expect(resumed.reports.map((r) => r.replayed)).toEqual([true, false]);
    expect(resumed.calls).toEqual([{ name: "everything__echo", args: { message: "one" } }]);

    // A journaled turn whose request differs is not replayed.
    const changed = io();
    changed.turns.set(1, turn1);
    const mismatch = await loop.run(task({ story: { ...task().story, description: "changed" } }), changed.stepIO);
    expect(mismatch).toMatchObject({ status: "blocked", code: "replay_mismatch" });
    expect(server.requests).toHaveLength(3);
  });

  it("streams a live turn's text to onText with its number; a journaled turn is replayed silently", async () => {
    const said = (text: string, name: string) => ({ text, ...toolCall(name, { message: "m", summary: "s" }) });
    const { loop, server } = await loopOn("openai:gpt-test", [said("Echo first.", "everything__echo")]);
    server.enqueue(said("Now done.", "step_pass"), said("Done again.", "step_pass"));
    const heard: Array<[number, string]> = [];
    const first = io();
    await loop.run(task(), { ...first.stepIO, onText: (turn, _delta, text) => heard.push([turn, text]) });
    expect(heard.at(-1)).toEqual([2, "Now done."]);
    expect(new Set(heard.map(([turn]) => turn))).toEqual(new Set([1, 2]));
    expect(first.turns.get(1)?.response.text).toBe("Echo first.");
    expect(server.requests.map((r) => r.stream)).toEqual([true, true]);

    const resumed = io();
    const turn1 = first.turns.get(1);
    if (!turn1) throw new Error("turn 1 was not journaled");
    resumed.turns.set(1, turn1);
    heard.length = 0;
    await loop.run(task(), { ...resumed.stepIO, onText: (turn, _delta, text) => heard.push([turn, text]) });
    expect(new Set(heard.map(([turn]) => turn))).toEqual(new Set([2]));
  });

  it("records a cassette and replays it with the server gone; a changed task is replay_mismatch", async () => {
    const { server, chat } = await loopOn("openai:gpt-test", [
      toolCall("everything__echo", { message: "rec" }),
      toolCall("step_pass", { summary: "recorded" }),
    ]);
    const file = join(mkdtempSync(join(tmpdir(), "meshflow-cassette-")), "c.json");
    const recording = new ModelLoop(new RecordingChatModel(chat, Cassette.create(file)));
    expect((await recording.run(task(), io().stepIO)).summary).toBe("recorded");
    expect(JSON.parse(readFileSync(file, "utf8")).turns).toHaveLength(2);
    await server.close();

    const replay = new ModelLoop(new ReplayingChatModel("openai:gpt-test", Cassette.load(file)));
    const again = io();
    const claim = await replay.run(task(), again.stepIO);
    expect(claim).toMatchObject({ status: "passed", summary: "recorded" });
    expect(again.calls).toEqual([{ name: "everything__echo", args: { message: "rec" } }]);
    expect(again.reports.every((r) => r.replayed)).toBe(true);

    const changed = await replay.run(task({ instructions: "Other instructions." }), io().stepIO);
    expect(changed).toMatchObject({ status: "blocked", code: "replay_mismatch" });
    expect(changed.summary).toContain("turn 1 of US-001 step 7");
  });

  it("retries a 503 from the provider, then goes on", async () => {
    server = await ScriptedModelServer.start({
      script: [{ error: { status: 503, message: "overloaded" } }, toolCall("step_pass", { summary: "after a retry" })],
    });
    const chat = new AiSdkChatModel(parseModelName("anthropic:claude-test"), {
      baseUrl: server.baseUrl,
      apiKey: "k",
      maxRetries: 1,
      retryDelayMs: 1,
    });
    const claim = await new ModelLoop(chat).run(task(), io().stepIO);
    expect(claim).toMatchObject({ status: "passed", summary: "after a retry" });
    expect(server.requests).toHaveLength(2);
  });

  it("a model error blocks the step with model_error, naming the model", async () => {
    const { loop } = await loopOn("openai:gpt-test", [{ error: { status: 400, message: "context too long" } }]);
    const claim = await loop.run(task(), io().stepIO);
    expect(claim).toMatchObject({ status: "blocked", code: "model_error" });
    expect(claim.summary).toContain("openai:gpt-test failed on turn 1 of US-001 step 7");
  });

  it("sizes the first request for --dry-run", async () => {
    const { loop } = await loopOn("openai:gpt-test", []);
    const size = loop.size(task());
    expect(size.tools).toBe(5);
    expect(size.promptBytes).toBeGreaterThan(200);
    expect(size.toolBytes).toBeGreaterThan(200);
  });
});
