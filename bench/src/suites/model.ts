import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import {
  type ModelStepIO,
  type ModelTask,
  parseModelName,
  type RecordedTurn,
  type ToolDescriptor,
} from "@meshflow/core";
import { AiSdkChatModel, Cassette, ModelLoop, RecordingChatModel, ReplayingChatModel } from "@meshflow/model";
import { type ReceivedRequest, ScriptedModelServer, type ScriptedReply } from "@meshflow/model/testing";
import { generateText, jsonSchema, stepCountIs, type ToolSet, tool } from "ai";
import { type Row, stats } from "../measure.js";

/** Tools offered every turn (the size of a typical step's repertoire). */
const TOOLS = 20;
/** Model turns per step: TURNS - 1 tool calls, then the finish. */
const TURNS = 10;
/** Steps per round per side; rounds alternate which side goes first. */
const STEPS = 20;
const ROUNDS = 7;
/** Replayed steps timed for the replay rate. */
const REPLAY_STEPS = 2_000;

function repertoire(): ToolDescriptor[] {
  return Array.from({ length: TOOLS }, (_, i) => ({
    server: "bench",
    name: `tool_${i}`,
    qualifiedName: `bench__tool_${i}`,
    description: `Tool number ${i}: takes a path and a count, returns a short text.`,
    inputSchema: {
      type: "object",
      properties: {
        path: { type: "string", description: "a file path" },
        count: { type: "integer", minimum: 0 },
      },
      required: ["path"],
    },
    annotations: { readOnlyHint: true },
  }));
}

function task(tools: ToolDescriptor[]): ModelTask {
  return {
    runId: "bench",
    storyId: "US-001",
    step: 7,
    specialist: "development-agent",
    instructions: "You implement user stories with the tools you are given.",
    stepPurpose: "Data layer: implement the story's data, storage and backend logic.",
    story: {
      id: "US-001",
      title: "Bench story",
      description: "As a user I want the benchmark to call tools.",
      acceptanceCriteria: ["it calls tools"],
      notes: "",
    },
    earlier: [],
    tools,
  };
}

/** The step's script: tool calls until TURNS - 1 assistant turns are in the conversation, then the finish. */
function reply(finish: ScriptedReply) {
  return (request: ReceivedRequest): ScriptedReply => {
    const done = request.messages.filter((m) => m.role === "assistant").length;
    if (done >= TURNS - 1) return finish;
    return {
      toolCalls: [{ name: `bench__tool_${done % TOOLS}`, input: { path: `src/file${done}.ts`, count: done } }],
      usage: { inputTokens: 1000, outputTokens: 20 },
    };
  };
}

/** A step's I/O with tools that answer at once and an in-memory turn journal. */
function stepIO(journal = new Map<number, RecordedTurn>()): ModelStepIO {
  return {
    call: async (name) => ({ content: [{ type: "text", text: `${name}: ok` }] }),
    turns: {
      get: async (turn) => journal.get(turn),
      record: async (turn, recorded) => {
        journal.set(turn, recorded);
      },
    },
    onTurn: () => {},
    signal: new AbortController().signal,
  };
}

/**
 * `npm run bench -- model`: the think loop's cost per model turn against a raw AI SDK agent loop
 * (`generateText` with the same tools, `execute` functions and `stopWhen`) on the same scripted model
 * server over real HTTP, alternating in the same run; and replayed turns per second from a cassette.
 */
export async function modelSuite(): Promise<Row[]> {
  const tools = repertoire();
  const loopServer = await ScriptedModelServer.start({
    handler: reply({ toolCalls: [{ name: "step_pass", input: { summary: "done" } }] }),
  });
  const rawServer = await ScriptedModelServer.start({ handler: reply({ text: "done" }) });
  const dir = mkdtempSync(join(tmpdir(), "meshflow-bench-model-"));
  try {
    const ref = parseModelName("openai:gpt-bench");
    const loop = new ModelLoop(new AiSdkChatModel(ref, { baseUrl: loopServer.baseUrl, apiKey: "k", maxRetries: 0 }));
    const { createOpenAI } = await import("@ai-sdk/openai");
    const rawModel = createOpenAI({ baseURL: rawServer.baseUrl, apiKey: "k" }).chat("gpt-bench");
    const rawTools: ToolSet = {};
    for (const t of tools)
      rawTools[t.qualifiedName] = tool({
        description: t.description ?? "",
        inputSchema: jsonSchema(t.inputSchema as never),
        execute: async () => `${t.qualifiedName}: ok`,
      });

    const meshflowStep = async () => {
      const claim = await loop.run(task(tools), stepIO());
      if (claim.status !== "passed" || claim.usage.turns !== TURNS) throw new Error(`bench step: ${claim.summary}`);
    };
    const rawStep = async () => {
      const result = await generateText({
        model: rawModel,
        system: "You implement user stories with the tools you are given.",
        prompt: "Do step 7 of US-001.",
        tools: rawTools,
        stopWhen: stepCountIs(TURNS),
        maxRetries: 0,
      });
      if (result.steps.length !== TURNS) throw new Error(`raw step: ${result.steps.length} turns`);
    };
    const timeSteps = async (step: () => Promise<void>) => {
      const start = performance.now();
      for (let i = 0; i < STEPS; i++) await step();
      return (performance.now() - start) / (STEPS * TURNS);
    };
    await meshflowStep();
    await rawStep();
    const mesh: number[] = [];
    const raw: number[] = [];
    const ratios: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      // Alternate which side goes first, so drift of the machine falls on both.
      let m: number;
      let w: number;
      if (r % 2 === 0) {
        m = await timeSteps(meshflowStep);
        w = await timeSteps(rawStep);
      } else {
        w = await timeSteps(rawStep);
        m = await timeSteps(meshflowStep);
      }
      mesh.push(m);
      raw.push(w);
      ratios.push(m / w);
    }
    const meshP50 = stats(mesh).p50;
    const rawP50 = stats(raw).p50;
    const ratio = stats(ratios).p50;

    // Replay: record one step in a cassette, then answer it from the file with no server.
    const file = join(dir, "bench.cassette.json");
    const recorder = new ModelLoop(
      new RecordingChatModel(
        new AiSdkChatModel(ref, { baseUrl: loopServer.baseUrl, apiKey: "k", maxRetries: 0 }),
        Cassette.create(file),
      ),
    );
    await recorder.run(task(tools), stepIO());
    const replay = new ModelLoop(new ReplayingChatModel("openai:gpt-bench", Cassette.load(file)));
    for (let i = 0; i < 50; i++) await replay.run(task(tools), stepIO());
    const start = performance.now();
    for (let i = 0; i < REPLAY_STEPS; i++) {
      const claim = await replay.run(task(tools), stepIO());
      if (claim.status !== "passed") throw new Error(`replay: ${claim.summary}`);
    }
    const replayed = (REPLAY_STEPS * TURNS) / ((performance.now() - start) / 1000);

    return [
      {
        suite: "model",
        case: `loop per turn (${TOOLS} tools, ${TURNS}-turn steps)`,
        value: meshP50,
        unit: "ms/turn",
        baseline: { label: "raw AI SDK generateText loop", value: rawP50 },
        goal: `≤ 1.15× (median of ${ROUNDS} paired rounds: ${ratio.toFixed(2)}×)`,
        pass: ratio <= 1.15,
      },
      {
        suite: "model",
        case: "raw AI SDK generateText loop per turn",
        value: rawP50,
        unit: "ms/turn",
      },
      {
        suite: "model",
        case: `replayed turns from a cassette (${TURNS}-turn steps)`,
        value: replayed,
        unit: "turns/s",
        goal: "≥ 10,000/s",
        pass: replayed >= 10_000,
      },
    ];
  } finally {
    await loopServer.close();
    await rawServer.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
