import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RunEvent } from "@meshflow/core";
import { ScriptedModelServer, type ScriptedModelServerOptions, type ScriptedReply } from "@meshflow/model/testing";
import { afterEach, describe, expect, it } from "vitest";
import { parseEvents } from "../helpers/flowWorkspace.js";
import { modelWorkspace } from "../helpers/modelWorkspace.js";

// `flow run` with a model on the Anthropic wire, played by the scripted model server over real HTTP
// through @ai-sdk/anthropic: the server models Anthropic's prompt cache and reports usage as it does;
// the tools are the real filesystem server and our slow server.

const KEY = "sk-ant-test-meshflow";
let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function workspace(options: ScriptedModelServerOptions = {}) {
  server = await ScriptedModelServer.start({ apiKey: KEY, cacheMinTokens: 0, ...options });
  const ws = modelWorkspace(server, "unused");
  return { ws, server, flow: (args: string[]) => ws.flow(args, { ANTHROPIC_API_KEY: KEY }) };
}

const call = (name: string, input: Record<string, unknown>): ScriptedReply => ({ toolCalls: [{ name, input }] });
const pass = (summary: string) => call("step_pass", { summary });
/** The development agent's steps must change something to pass: a file written. */
const write = (files: string) => call("filesystem__write_file", { path: join(files, "out.txt"), content: "done\n" });

function story(model: string, servers = ["filesystem"]) {
  return {
    title: "Read files",
    description: "As a user I want files read.",
    mavenSteps: [7],
    mcpTools: { step7: servers },
    model,
  };
}

const turnsOf = (events: RunEvent[]) =>
  events.filter((e): e is Extract<RunEvent, { type: "model.turn" }> => e.type === "model.turn");

describe("flow run's model economy", () => {
  it("reads the prompt's prefix from the cache on turns 2+, prices every turn, and reports both up to the run and flow status", async () => {
    const { ws, server, flow } = await workspace();
    writeFileSync(join(ws.files, "a.txt"), "alpha\n");
    server.enqueue(
      call("filesystem__read_text_file", { path: join(ws.files, "a.txt") }),
      call("filesystem__list_directory", { path: ws.files }),
      write(ws.files),
      pass("read and listed"),
    );
    ws.writePrd([story("anthropic:claude-sonnet-4-5")]);
    const run = await flow(["run", "prd.json", "--json"]);
    expect(run.code, run.stderr + run.stdout.slice(-3000)).toBe(0);
    const events = parseEvents(run.stdout);
    const turns = turnsOf(events);
    expect(turns).toHaveLength(4);
    expect(turns[0]?.cacheReadTokens).toBeUndefined();
    for (const turn of turns.slice(1)) expect(turn.cacheReadTokens).toBeGreaterThan(0);
    for (const turn of turns) expect(turn.costUsd).toBeGreaterThan(0);
    // Every request carries its marks: the system prompt (with the tools before it) and the conversation's end.
    for (const request of server.requests)
      expect(JSON.stringify((request.body as { system: unknown[] }).system)).toContain("cache_control");

    const cost = turns.reduce((sum, t) => sum + (t.costUsd ?? 0), 0);
    const read = turns.reduce((sum, t) => sum + (t.cacheReadTokens ?? 0), 0);
    for (const type of ["step.finished", "story.finished", "run.finished"] as const) {
      const tokens = (events.find((e) => e.type === type) as { tokens?: { costUsd?: number; cacheRead?: number } })
        .tokens;
      expect(tokens?.costUsd, type).toBeCloseTo(cost, 10);
      expect(tokens?.cacheRead, type).toBe(read);
    }

    const status = await ws.flow(["status"]);
    expect(status.stdout).toMatch(/from cache.*\$0\.\d{4}/);
    const json = JSON.parse((await ws.flow(["status", "--json"])).stdout) as { run: { tokens: { costUsd: number } } };
    expect(json.run.tokens.costUsd).toBeCloseTo(cost, 10);
  });

  it("shows a model no price table knows as cost unknown; --prices prices it; --max-step-cost then stops the step", async () => {
    const { ws, server, flow } = await workspace();
    const script = () => [call("filesystem__list_directory", { path: ws.files }), write(ws.files), pass("listed")];
    server.enqueue(...script());
    ws.writePrd([story("anthropic:claude-next")]);
    const unknown = await flow(["run", "prd.json"]);
    expect(unknown.code, unknown.stderr).toBe(0);
    expect(unknown.stdout).toMatch(/US-001 +✓ passed +1 +2 +[\d,]+ +unknown/);
    expect(unknown.stdout).toContain("cost unknown");
    expect(unknown.stdout).not.toContain("$0.0000");

    const prices = join(ws.dir, "prices.yaml");
    writeFileSync(
      prices,
      'date: "2026-11-01"\nmodels:\n  anthropic:claude-next: { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 }\n',
    );
    server.enqueue(...script());
    ws.writePrd([story("anthropic:claude-next")]);
    const priced = await flow(["run", "prd.json", "--json", "--prices", prices]);
    expect(priced.code, priced.stderr).toBe(0);
    expect(turnsOf(parseEvents(priced.stdout)).every((t) => (t.costUsd ?? 0) > 0)).toBe(true);

    server.enqueue(...script());
    ws.writePrd([story("anthropic:claude-next")]);
    const stopped = await flow(["run", "prd.json", "--json", "--prices", prices, "--max-step-cost", "0.000001"]);
    expect(stopped.code).toBe(1);
    const finished = parseEvents(stopped.stdout).find((e) => e.type === "step.finished");
    expect(finished).toMatchObject({ status: "blocked" });
    expect((finished as { summary: string }).summary).toMatch(
      /budget_exhausted: --max-step-cost \$0\.0000 reached: the step's models spent \$0\.\d{4}/,
    );
  });

  it("--max-run-cost stops every step once the run's models spent it, naming what they spent", async () => {
    const { ws, server, flow } = await workspace();
    server.enqueue(call("filesystem__list_directory", { path: ws.files }), write(ws.files), pass("listed"));
    ws.writePrd([story("anthropic:claude-sonnet-4-5"), story("anthropic:claude-sonnet-4-5")]);
    const run = await flow(["run", "prd.json", "--json", "--max-run-cost", "0.000001"]);
    expect(run.code).toBe(1);
    // The first turn spent the budget: the first step's next turn and the second step never asked.
    expect(server.requests).toHaveLength(1);
    const finished = parseEvents(run.stdout).filter((e) => e.type === "step.finished") as Array<{ summary: string }>;
    expect(finished).toHaveLength(2);
    for (const step of finished)
      expect(step.summary).toMatch(
        /budget_exhausted: --max-run-cost \$0\.0000 reached: the run's models spent \$0\.\d{4}/,
      );
  });

  it("waits ~2 s once for a 429 with Retry-After: 2, and journals the turn once", async () => {
    const arrived: number[] = [];
    const script: ScriptedReply[] = [];
    const { ws, flow } = await workspace({
      handler: () => {
        arrived.push(performance.now());
        return script.shift();
      },
    });
    script.push(
      { error: { status: 429, message: "rate limited", headers: { "retry-after": "2" } } },
      write(ws.files),
      pass("done"),
    );
    ws.writePrd([story("anthropic:claude-sonnet-4-5")]);
    const run = await flow(["run", "prd.json", "--json"]);
    expect(run.code, run.stderr + run.stdout.slice(-3000)).toBe(0);
    expect(arrived).toHaveLength(3);
    expect((arrived[1] ?? 0) - (arrived[0] ?? 0)).toBeGreaterThanOrEqual(1_500);
    expect(turnsOf(parseEvents(run.stdout))).toHaveLength(2);
    const runId = parseEvents(run.stdout)[0]?.runId ?? "";
    const journal = readFileSync(join(ws.dir, ".flow/runs", runId, "journal.ndjson"), "utf8");
    expect(journal.split("\n").filter((l) => l.includes("/turn1") && l.includes('"finished"'))).toHaveLength(1);
  });

  it("runs three read-only calls of one turn at once, a write alone, and hands the results back in the model's order", async () => {
    const { ws, server, flow } = await workspace();
    const read = (id: string) => ({ name: "slow__timed_read", input: { log: "calls.log", id, meet: 3 } });
    server.enqueue(
      {
        toolCalls: [
          read("r1"),
          read("r2"),
          read("r3"),
          { name: "slow__timed_write", input: { log: "calls.log", id: "w4" } },
        ],
      },
      pass("read three, wrote one"),
    );
    ws.writePrd([story("anthropic:claude-sonnet-4-5", ["slow"])]);
    const run = await flow(["run", "prd.json", "--json"]);
    expect(run.code, run.stderr + run.stdout.slice(-3000)).toBe(0);
    const at = new Map<string, number>(
      ws
        .read("calls.log")
        .trim()
        .split("\n")
        .map((line) => {
          const [what, id, ms] = line.split(" ");
          return [`${what} ${id}`, Number(ms)];
        }),
    );
    const t = (key: string) => at.get(key) ?? Number.NaN;
    // The server saw every read start before any read ended: they overlapped.
    expect(Math.max(t("start r1"), t("start r2"), t("start r3"))).toBeLessThanOrEqual(
      Math.min(t("end r1"), t("end r2"), t("end r3")),
    );
    // The write started after every read had ended.
    expect(t("start w4")).toBeGreaterThanOrEqual(Math.max(t("end r1"), t("end r2"), t("end r3")));
    expect(server.requests[1]?.toolResults.map((r) => r.text)).toEqual(["read r1", "read r2", "read r3", "wrote w4"]);
    const keys = parseEvents(run.stdout).flatMap((e) => (e.type === "tool.called" ? [e.key.split("/").at(-1)] : []));
    expect(keys.sort()).toEqual(["1", "2", "3", "4"]);
  });

  it("trims the oldest tool results when the conversation would outgrow the window, finishes, and replays as recorded", async () => {
    const { ws, server, flow } = await workspace({ contextWindow: 6_000 });
    const script = () => [
      ...["a", "b", "c", "d", "e", "f"].map((f) =>
        call("filesystem__read_text_file", { path: join(ws.files, `${f}.txt`) }),
      ),
      write(ws.files),
      pass("read six files"),
    ];
    for (const f of ["a", "b", "c", "d", "e", "f"]) writeFileSync(join(ws.files, `${f}.txt`), `${f}`.repeat(4_000));
    server.enqueue(...script());
    ws.writePrd([story("anthropic:claude-sonnet-4-5")]);
    const cassette = join(ws.dir, "trimmed.cassette.json");
    const run = await flow(["run", "prd.json", "--json", "--context-window", "6000", "--record", cassette]);
    expect(run.code, run.stderr + run.stdout.slice(-3000)).toBe(0);
    expect(turnsOf(parseEvents(run.stdout)).some((t) => (t.trimmedResults ?? 0) > 0)).toBe(true);
    const texts =
      server.requests
        .at(-1)
        ?.messages.flatMap((m) => m.toolResults ?? [])
        .map((r) => r.text) ?? [];
    expect(texts[0]).toMatch(/^\[trimmed: this filesystem__read_text_file result/);

    await server.close();
    ws.writePrd([story("anthropic:claude-sonnet-4-5")]);
    const replay = await ws.flow(["run", "prd.json", "--json", "--context-window", "6000", "--replay", cassette]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(parseEvents(replay.stdout).find((e) => e.type === "step.finished")).toMatchObject({ status: "passed" });
  });
});
