import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ModelStepIO,
  type ModelTask,
  type ModelTurnReport,
  type ModelWait,
  parseModelName,
  type RecordedTurn,
  type ToolDescriptor,
} from "@meshflow/core";
import { afterEach, describe, expect, it } from "vitest";
import { AiSdkChatModel, type ProviderSettings } from "./aiSdkModel.js";
import { Cassette, RecordingChatModel, ReplayingChatModel } from "./Cassette.js";
import type { ChatModel } from "./ChatModel.js";
import type { ModelBudgets } from "./ModelBudgets.js";
import { ModelLoop } from "./ModelLoop.js";
import { ScriptedModelServer, type ScriptedModelServerOptions } from "./testing/ScriptedModelServer.js";
import type { ScriptedReply } from "./testing/ScriptedReply.js";

// A provider's limits against the scripted model server: 429 with Retry-After, 529 overloaded, and a
// context window it refuses requests over.

const read: ToolDescriptor = {
  server: "files",
  name: "read",
  qualifiedName: "files__read",
  description: "Reads a file",
  inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  annotations: { readOnlyHint: true },
};

const task: ModelTask = {
  runId: "r1",
  storyId: "US-001",
  step: 7,
  specialist: "development-agent",
  instructions: "You implement stories.",
  stepPurpose: "Data layer.",
  story: {
    id: "US-001",
    title: "Read",
    description: "As a user I want files read.",
    acceptanceCriteria: [],
    notes: "",
  },
  earlier: [],
  tools: [read],
};

/** A file of 3,000 characters per path: deterministic, so a replay's tools answer as the recording's did. */
const content = (path: string) => `${path}:`.padEnd(3_000, "x");

function io(journal = new Map<number, RecordedTurn>()) {
  const reports: ModelTurnReport[] = [];
  const waits: Array<Pick<ModelWait, "status" | "waitMs" | "retryAfter" | "attempt">> = [];
  let records = 0;
  const stepIO: ModelStepIO = {
    call: async (_name, args) => ({ content: [{ type: "text", text: content(String(args.path)) }] }),
    turns: {
      get: async (turn) => journal.get(turn),
      record: async (turn, recorded) => {
        records += 1;
        journal.set(turn, recorded);
      },
    },
    onTurn: (report) => reports.push(report),
    onWait: (_turn, wait) => waits.push(wait),
    signal: new AbortController().signal,
  };
  return { stepIO, reports, waits, journal, records: () => records };
}

const readTurn = (path: string): ScriptedReply => ({ toolCalls: [{ name: "files__read", input: { path } }] });
const pass: ScriptedReply = { toolCalls: [{ name: "step_pass", input: { summary: "done" } }] };

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function chatOn(name: string, options: ScriptedModelServerOptions, settings: Partial<ProviderSettings> = {}) {
  server = await ScriptedModelServer.start(options);
  return new AiSdkChatModel(parseModelName(name), { baseUrl: server.baseUrl, apiKey: "k", ...settings });
}

describe("ModelLoop and a provider's limits", () => {
  it("waits as a 429's Retry-After: 2 asks, once, and journals the turn once", async () => {
    const arrived: number[] = [];
    const script: ScriptedReply[] = [
      { error: { status: 429, message: "rate limited", headers: { "retry-after": "2" } } },
      pass,
    ];
    const chat = await chatOn("anthropic:claude-test", {
      handler: () => {
        arrived.push(performance.now());
        return script.shift();
      },
    });
    const { stepIO, reports, waits, records } = io();
    const claim = await new ModelLoop(chat).run(task, stepIO);
    expect(claim.status).toBe("passed");
    expect(arrived).toHaveLength(2);
    expect((arrived[1] ?? 0) - (arrived[0] ?? 0)).toBeGreaterThanOrEqual(1_500);
    expect(waits).toEqual([{ status: 429, waitMs: expect.any(Number), retryAfter: true, attempt: 2 }]);
    expect(waits[0]?.waitMs).toBeGreaterThanOrEqual(2_000);
    expect(waits[0]?.waitMs).toBeLessThanOrEqual(2_200);
    expect(records()).toBe(1);
    expect(reports).toHaveLength(1);
  });

  it("retries a 529 overloaded answer with its own backoff, and caps a Retry-After at --max-retry-wait", async () => {
    const chat = await chatOn(
      "anthropic:claude-test",
      {
        script: [
          { error: { status: 529, message: "overloaded" } },
          { error: { status: 429, message: "slow down", headers: { "retry-after": "30" } } },
          pass,
        ],
      },
      { retryDelayMs: 10, maxRetryWaitMs: 50 },
    );
    const { stepIO, waits } = io();
    const claim = await new ModelLoop(chat).run(task, stepIO);
    expect(claim.status).toBe("passed");
    expect(waits).toEqual([
      { status: 529, waitMs: 10, retryAfter: false, attempt: 2 },
      { status: 429, waitMs: 50, retryAfter: true, attempt: 3 },
    ]);
  });
});

describe("ModelLoop context budget", () => {
  const script = () => [readTurn("a"), readTurn("b"), readTurn("c"), readTurn("d"), readTurn("e"), readTurn("f"), pass];
  const budgets: Partial<ModelBudgets> = { contextWindow: 4_000, contextShare: 0.75, maxResultChars: 5_000 };

  it("without a budget, the conversation outgrows the window and the provider refuses it", async () => {
    const chat = await chatOn("openai:gpt-test", { script: script(), contextWindow: 4_000 }, { maxRetries: 0 });
    const claim = await new ModelLoop(chat, { maxResultChars: 5_000 }).run(task, io().stepIO);
    expect(claim).toMatchObject({ status: "blocked", code: "model_error" });
    expect(claim.summary).toContain("maximum context length is 4000 tokens");
  });

  it("trims the oldest tool results to a marker so the step finishes, keeps the latest, and replays as recorded", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "meshflow-context-")), "trimmed.cassette.json");
    const live = await chatOn("openai:gpt-test", { script: script(), contextWindow: 4_000 }, { maxRetries: 0 });
    const recorded = io();
    const cassette = Cassette.create(file);
    const claim = await new ModelLoop(new RecordingChatModel(live, cassette), budgets).run(task, recorded.stepIO);
    expect(claim).toMatchObject({ status: "passed", usage: { turns: 7 } });
    const requests = server?.requests ?? [];
    expect(requests.every((r) => (r.usage?.inputTokens ?? Number.POSITIVE_INFINITY) <= 3_000)).toBe(true);
    const trimmedTurns = recorded.reports.filter((r) => r.trimmedResults);
    expect(trimmedTurns.length).toBeGreaterThan(0);
    const last = requests.at(-1);
    const results = last?.messages.flatMap((m) => m.toolResults ?? []) ?? [];
    expect(results[0]?.text).toMatch(/^\[trimmed: this files__read result \(3000 characters\) was removed/);
    // The latest result, which the model is answering, is whole.
    expect(last?.toolResults[0]?.text).toBe(content("f"));

    // Replayed from the cassette (no server) and from the journal (a resume): every request digest matches.
    await server?.close();
    const replay: ChatModel = new ReplayingChatModel("openai:gpt-test", Cassette.load(file));
    const replayed = io();
    const again = await new ModelLoop(replay, budgets).run(task, replayed.stepIO);
    expect(again).toMatchObject({ status: "passed", usage: { turns: 7 } });
    expect(replayed.reports.map((r) => r.trimmedResults)).toEqual(recorded.reports.map((r) => r.trimmedResults));
    const resumed = io(recorded.journal);
    const fromJournal = await new ModelLoop(replay, budgets).run(task, resumed.stepIO);
    expect(fromJournal).toMatchObject({ status: "passed" });
    expect(resumed.reports.every((r) => r.replayed)).toBe(true);
  });
});
