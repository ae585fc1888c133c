import {
  type ModelStepIO,
  type ModelTask,
  type ModelTurnReport,
  parseModelName,
  priceOf,
  type RecordedTurn,
  shippedPrices,
  type ToolDescriptor,
  turnCost,
} from "@meshflow/core";
import { afterEach, describe, expect, it } from "vitest";
import { AiSdkChatModel } from "./aiSdkModel.js";
import type { ModelBudgets } from "./ModelBudgets.js";
import { ModelLoop } from "./ModelLoop.js";
import { ScriptedModelServer } from "./testing/ScriptedModelServer.js";
import type { ScriptedReply } from "./testing/ScriptedReply.js";

// Prompt caching and cost against the scripted model server, which models each provider's prompt
// cache (Anthropic: up to the request's cache marks; OpenAI: every long shared prefix) and reports
// usage in each provider's own fields, reached through the real provider packages.

const read: ToolDescriptor = {
  server: "files",
  name: "read",
  qualifiedName: "files__read",
  description: "Reads a file",
  inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  annotations: { readOnlyHint: true },
};

function task(instructions = "You implement stories."): ModelTask {
  return {
    runId: "r1",
    storyId: "US-001",
    step: 7,
    specialist: "development-agent",
    instructions,
    stepPurpose: "Data layer.",
    story: {
      id: "US-001",
      title: "Greet",
      description: "As a user I want a greeting.",
      acceptanceCriteria: [],
      notes: "",
    },
    earlier: [],
    tools: [read],
  };
}

function io(extra: Partial<ModelStepIO> = {}) {
  const journal = new Map<number, RecordedTurn>();
  const reports: ModelTurnReport[] = [];
  const stepIO: ModelStepIO = {
    call: async (name, args) => ({ content: [{ type: "text", text: `${name} read ${String(args.path)}` }] }),
    turns: {
      get: async (turn) => journal.get(turn),
      record: async (turn, recorded) => {
        journal.set(turn, recorded);
      },
    },
    onTurn: (report) => reports.push(report),
    signal: new AbortController().signal,
    ...extra,
  };
  return { stepIO, reports };
}

const readTurn = (path: string): ScriptedReply => ({ toolCalls: [{ name: "files__read", input: { path } }] });
const pass: ScriptedReply = { toolCalls: [{ name: "step_pass", input: { summary: "read both" } }] };

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function loopOn(name: string, script: ScriptedReply[], budgets: Partial<ModelBudgets> = {}) {
  server = await ScriptedModelServer.start({ script, cacheMinTokens: 0 });
  const chat = new AiSdkChatModel(parseModelName(name), { baseUrl: server.baseUrl, apiKey: "k", maxRetries: 0 });
  return { loop: new ModelLoop(chat, budgets), server };
}

/** Whether a JSON value of a request body carries Anthropic's cache mark. */
const marked = (value: unknown) => JSON.stringify(value).includes('"cache_control":{"type":"ephemeral"}');

describe("ModelLoop prompt caching", () => {
  it("marks the system prompt and the conversation's ends for Anthropic, so turns 2+ read the prefix from the cache", async () => {
    const { loop, server } = await loopOn("anthropic:claude-sonnet-4-5", [readTurn("a.ts"), readTurn("b.ts"), pass]);
    const { stepIO, reports } = io();
    const claim = await loop.run(task(), stepIO);
    expect(claim.status).toBe("passed");

    const bodies = server.requests.map(
      (r) => r.body as { system: unknown[]; tools: unknown[]; messages: Array<{ content: unknown[] }> },
    );
    for (const body of bodies) {
      // The system prompt's mark caches the tools with it (they come first); no tool carries its own.
      expect(marked(body.system.at(-1))).toBe(true);
      expect(body.tools.some(marked)).toBe(false);
      expect(marked(body.messages.at(-1))).toBe(true);
    }
    // From turn 2 on, the previous request's last message is marked too: that is the prefix read back.
    expect(bodies[1]?.messages.map(marked)).toEqual([true, false, true]);
    expect(bodies[2]?.messages.map(marked)).toEqual([false, false, true, false, true]);

    const [first, second, third] = reports;
    expect(first?.cacheReadTokens).toBeUndefined();
    expect(first?.cacheWriteTokens).toBeGreaterThan(0);
    // Turn 2 reads exactly what turn 1 wrote (its whole prompt), and writes only what it added.
    expect(second?.cacheReadTokens).toBe(first?.cacheWriteTokens);
    expect(third?.cacheReadTokens).toBe((second?.cacheReadTokens ?? 0) + (second?.cacheWriteTokens ?? 0));
    expect(claim.usage.cacheReadTokens).toBe((second?.cacheReadTokens ?? 0) + (third?.cacheReadTokens ?? 0));
    // What the loop counted is what the server billed.
    expect(reports.map((r) => [r.inputTokens, r.cacheReadTokens ?? 0, r.cacheWriteTokens ?? 0])).toEqual(
      server.requests.map((r) => [r.usage?.inputTokens, r.usage?.cacheReadTokens ?? 0, r.usage?.cacheWriteTokens ?? 0]),
    );
  });

  it("reports OpenAI's automatic cache reads (cached_tokens) and sends no cache marks", async () => {
    const { loop, server } = await loopOn("openai:gpt-4.1", [readTurn("a.ts"), pass]);
    const { stepIO, reports } = io();
    await loop.run(task("You implement stories. ".repeat(200)), stepIO);
    expect(JSON.stringify(server.requests[0]?.body)).not.toContain("cache_control");
    expect(reports[0]?.cacheReadTokens).toBeUndefined();
    expect(reports[1]?.cacheReadTokens).toBeGreaterThan(0);
    expect((reports[1]?.cacheReadTokens ?? 0) % 128).toBe(0);
    expect(reports[1]?.cacheWriteTokens).toBeUndefined();
  });
});

describe("ModelLoop cost", () => {
  it("prices each turn from the price table, cache reads and writes at their own rates, and adds them up", async () => {
    const { loop } = await loopOn("anthropic:claude-sonnet-4-5", [readTurn("a.ts"), readTurn("b.ts"), pass]);
    const { stepIO, reports } = io();
    const claim = await loop.run(task(), stepIO);
    const price = priceOf(shippedPrices(), "anthropic:claude-sonnet-4-5");
    let total = 0;
    for (const r of reports) {
      const expected = turnCost(price, r) ?? Number.NaN;
      expect(r.costUsd).toBeCloseTo(expected, 12);
      expect(r.costUnknown).toBeUndefined();
      total += expected;
    }
    expect(claim.usage.costUsd).toBeCloseTo(total, 12);
    expect(claim.usage.unpricedTurns).toBeUndefined();
  });

  it("says a model nobody priced has an unknown cost, never 0; the PRD's prices make it known", async () => {
    const unknown = await loopOn("anthropic:claude-test", [readTurn("a.ts"), pass]);
    const { stepIO, reports } = io();
    const claim = await unknown.loop.run(task(), stepIO);
    expect(reports.map((r) => [r.costUsd, r.costUnknown])).toEqual([
      [undefined, true],
      [undefined, true],
    ]);
    expect(claim.usage).toMatchObject({ unpricedTurns: 2 });
    expect(claim.usage.costUsd).toBeUndefined();
    await unknown.server.close();

    const priced = await loopOn("anthropic:claude-test", [readTurn("a.ts"), pass]);
    const withPrices = io({ prices: { "anthropic:claude-test": { input: 1, output: 2 } } });
    const pricedClaim = await priced.loop.run(task(), withPrices.stepIO);
    expect(withPrices.reports[0]?.costUsd).toBeGreaterThan(0);
    expect(pricedClaim.usage.unpricedTurns).toBeUndefined();
  });

  it("ends a step at --max-step-cost with budget_exhausted, naming what was spent", async () => {
    const { loop, server } = await loopOn("anthropic:claude-sonnet-4-5", [readTurn("a.ts"), readTurn("b.ts"), pass], {
      maxStepCostUsd: 0.000001,
    });
    const claim = await loop.run(task(), io().stepIO);
    expect(claim).toMatchObject({ status: "blocked", code: "budget_exhausted", usage: { turns: 1 } });
    expect(claim.summary).toMatch(/--max-step-cost \$0\.0000 reached: the step's models spent \$0\.\d{4}/);
    expect(server.requests).toHaveLength(1);
  });

  it("ends a step at --max-run-cost once the run's models spent it, and refuses a cost budget for an unpriced model", async () => {
    const run = await loopOn("anthropic:claude-sonnet-4-5", [readTurn("a.ts"), pass], { maxRunCostUsd: 0.5 });
    const runSpent = { costUsd: 0.75 };
    const claim = await run.loop.run(task(), io({ runSpent }).stepIO);
    expect(claim).toMatchObject({ status: "blocked", code: "budget_exhausted" });
    expect(claim.summary).toContain("--max-run-cost $0.5000 reached: the run's models spent $0.7500");
    expect(run.server.requests).toHaveLength(0);
    await run.server.close();

    const unpriced = await loopOn("anthropic:claude-test", [pass], { maxStepCostUsd: 1 });
    const refused = await unpriced.loop.run(task(), io().stepIO);
    expect(refused).toMatchObject({ status: "blocked", code: "budget_exhausted" });
    expect(refused.summary).toContain("the cost of anthropic:claude-test is unknown");
    expect(unpriced.server.requests).toHaveLength(0);
  });

  it("counts the cost of every run of a step into the run's spend", async () => {
    const { loop } = await loopOn("anthropic:claude-sonnet-4-5", [readTurn("a.ts"), pass]);
    const runSpent = { costUsd: 0 };
    const claim = await loop.run(task(), io({ runSpent }).stepIO);
    expect(runSpent.costUsd).toBeCloseTo(claim.usage.costUsd ?? Number.NaN, 12);
  });
});
