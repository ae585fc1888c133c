import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ScriptedModelServer, type ScriptedReply } from "@meshflow/model/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type FlowWorkspace, parseEvents } from "../helpers/flowWorkspace.js";
import { modelWorkspace } from "../helpers/modelWorkspace.js";

// The model's words while its turn runs: `flow run` on a pseudo-terminal streams the turn and its live
// view shows the text as it arrives; off a terminal, and with --json, the turns are the plain requests
// they always were. The model is the scripted server over real HTTP, through the real @ai-sdk/openai.

const KEY = "sk-test-meshflow";
const SAID = "Reading the story first: hello.txt goes into the files folder, then I check what it holds.";
/** The part of SAID the scripted server sends before it holds the stream (its first of three pieces). */
const FIRST = SAID.slice(0, Math.ceil(SAID.length / 3));
const REST = SAID.slice(FIRST.length);

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A story for the development agent that says SAID while it writes hello.txt, then passes. */
function story(ws: FlowWorkspace, scripted: ScriptedModelServer, first: Partial<ScriptedReply> = {}): void {
  scripted.enqueue(
    {
      text: SAID,
      toolCalls: [{ name: "filesystem__write_file", input: { path: join(ws.files, "hello.txt"), content: "hello\n" } }],
      ...first,
    },
    { toolCalls: [{ name: "step_pass", input: { summary: "wrote hello.txt" } }] },
  );
  ws.writePrd([
    {
      title: "Say hello",
      description: "As a user I want a hello file.",
      mavenSteps: [7],
      mcpTools: { step7: ["filesystem"] },
      model: "openai:gpt-test",
    },
  ]);
}

async function workspace(first: Partial<ScriptedReply> = {}) {
  server = await ScriptedModelServer.start({ apiKey: KEY });
  const ws = modelWorkspace(server, KEY);
  story(ws, server, first);
  return { ws, server };
}

describe("the model's words on the terminal", () => {
  it("on a TTY the live view shows the turn's text while it streams, before the turn has ended", async () => {
    let release: () => void = () => {};
    const hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { ws, server } = await workspace({ hold });
    const flow = ws.flowOnTerminal(["run", "prd.json", "--run-id", "streamed"]);
    try {
      // The server holds the rest of the answer until the terminal shows its first piece: a view that
      // only drew finished turns would never get there.
      await flow.waitFor(`“${FIRST}`);
      expect(flow.screen()).not.toContain(REST.trim());
      expect(flow.screen()).not.toMatch(/1 turn,/);
      release();
      expect(await flow.exit, flow.screen()).toBe(0);
    } finally {
      release();
      flow.stop();
    }
    expect(ws.read("hello.txt")).toBe("hello\n");
    expect(server.requests.map((r) => r.stream)).toEqual([true, true]);
    // What was streamed is transient: the run's events hold the turn once, as it ended, and nothing else.
    const events = readFileSync(join(ws.dir, ".flow/runs/streamed/events.ndjson"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; text?: string });
    const turns = events.filter((e) => e.type === "model.turn");
    expect(turns.map((t) => t.text)).toEqual([SAID, undefined]);
    expect(events.filter((e) => JSON.stringify(e).includes(FIRST)).map((e) => e.type)).toEqual(["model.turn"]);
  });

  it("off a TTY and with --json (on a TTY too) nothing streams and no partial text is drawn", async () => {
    const { ws, server } = await workspace();
    const plain = await ws.flow(["run", "prd.json"], { CI: undefined });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toContain(`model openai:gpt-test turn 1`);
    expect(plain.stdout).toContain(`: “${SAID}”`);
    expect(plain.stdout).not.toContain("▌");
    expect(plain.stdout).not.toContain("\x1b[");

    story(ws, server);
    const json = ws.flowOnTerminal(["run", "prd.json", "--json", "--run-id", "json"]);
    expect(await json.exit, json.screen()).toBe(0);
    expect(json.screen()).not.toContain("▌");
    const events = parseEvents(json.screen());
    expect(events.filter((e) => e.type === "model.turn").map((e) => e.turn)).toEqual([1, 2]);
    expect(server.requests.map((r) => r.stream)).toEqual([false, false, false, false]);
  });

  it("on a TTY a 429's wait shows under the step, as the provider's Retry-After asks, until the turn goes on", async () => {
    server = await ScriptedModelServer.start({ apiKey: KEY });
    const ws = modelWorkspace(server, KEY);
    server.enqueue({ error: { status: 429, message: "rate limited", headers: { "retry-after": "2" } } });
    story(ws, server);
    const flow = ws.flowOnTerminal(["run", "prd.json", "--run-id", "waited"]);
    try {
      await flow.waitFor("429 rate limited: waiting");
      expect(flow.screen()).toMatch(/⏸ turn 1 429 rate limited: waiting 2\.\d s \(Retry-After\), then try 2/);
      expect(await flow.exit, flow.screen()).toBe(0);
    } finally {
      flow.stop();
    }
    expect(ws.read("hello.txt")).toBe("hello\n");
  });
});
