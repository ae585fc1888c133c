import { parseModelName } from "@meshflow/core";
import { afterEach, describe, expect, it } from "vitest";
import { AiSdkChatModel } from "./aiSdkModel.js";
import type { ChatRequest, TurnRef } from "./ChatModel.js";
import { ScriptedModelServer } from "./testing/ScriptedModelServer.js";
import type { ScriptedReply } from "./testing/ScriptedReply.js";

// A turn asked for with a text listener is streamed from the scripted server over real HTTP, through
// the real provider packages; without one it is the plain request it always was.

const request: ChatRequest = {
  system: "You implement stories.",
  messages: [{ role: "user", text: "Write hello.txt" }],
  tools: [
    {
      name: "files__write",
      description: "Writes a file",
      inputSchema: { type: "object", properties: { path: { type: "string" } } },
    },
  ],
};
const turn: TurnRef = { storyId: "US-001", step: 7, turn: 1, requestDigest: "d" };
const TEXT = "I will write hello.txt now, then check that it holds the greeting.";
// Explicit usage: the server's own estimate counts the request's bytes, which `stream: true` changes.
const reply: ScriptedReply = {
  text: TEXT,
  toolCalls: [{ id: "call_1", name: "files__write", input: { path: "hello.txt" } }],
  usage: { inputTokens: 120, outputTokens: 30 },
};

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const MODELS = ["openai:gpt-test", "anthropic:claude-test", "openai-compatible:local-test"];

describe("AiSdkChatModel", () => {
  it.each(MODELS)(
    "%s: with a listener the turn streams its text in order, and answers as without one",
    async (name) => {
      server = await ScriptedModelServer.start({ script: [reply, reply] });
      const model = new AiSdkChatModel(parseModelName(name), { baseUrl: server.baseUrl, apiKey: "k" });
      const signal = new AbortController().signal;

      const plain = await model.generate(request, turn, signal);
      const heard: Array<{ delta: string; text: string }> = [];
      const streamed = await model.generate(request, turn, signal, (delta, text) => heard.push({ delta, text }));

      expect(server.requests.map((r) => r.stream)).toEqual([false, true]);
      expect(streamed).toEqual(plain);
      expect(plain).toMatchObject({
        text: TEXT,
        toolCalls: [{ id: "call_1", name: "files__write", input: { path: "hello.txt" } }],
        usage: { inputTokens: 120, outputTokens: 30 },
        finishReason: "tool-calls",
      });
      expect(heard.length).toBeGreaterThan(1);
      expect(heard.map((h) => h.delta).join("")).toBe(TEXT);
      // Each piece comes with the text so far.
      let soFar = "";
      for (const h of heard) {
        soFar += h.delta;
        expect(h.text).toBe(soFar);
      }
    },
  );

  it("hands the first piece out while the answer is still open", async () => {
    let heardFirst: (piece: string) => void = () => {};
    const firstPiece = new Promise<string>((resolve) => {
      heardFirst = resolve;
    });
    // The server sends the rest only once the listener has had the first piece: the turn could not
    // end otherwise.
    server = await ScriptedModelServer.start({ script: [{ ...reply, hold: firstPiece }] });
    const model = new AiSdkChatModel(parseModelName("openai:gpt-test"), { baseUrl: server.baseUrl, apiKey: "k" });
    const response = await model.generate(request, turn, new AbortController().signal, (delta) => heardFirst(delta));
    expect(TEXT.startsWith(await firstPiece)).toBe(true);
    expect(response.text).toBe(TEXT);
  });

  it("retries a streamed request the server refused (503) as it retries a plain one", async () => {
    server = await ScriptedModelServer.start({ script: [{ error: { status: 503, message: "busy" } }, reply] });
    const model = new AiSdkChatModel(parseModelName("openai:gpt-test"), {
      baseUrl: server.baseUrl,
      apiKey: "k",
      retryDelayMs: 1,
    });
    const texts: string[] = [];
    const response = await model.generate(request, turn, new AbortController().signal, (_delta, text) =>
      texts.push(text),
    );
    expect(server.requests.map((r) => r.stream)).toEqual([true, true]);
    expect(response.text).toBe(TEXT);
    expect(texts.at(-1)).toBe(TEXT);
  });

  it("answers an empty streamed turn as the plain request does: no text, no calls, nothing heard", async () => {
    server = await ScriptedModelServer.start({ script: [{ text: "" }] });
    const model = new AiSdkChatModel(parseModelName("openai:gpt-test"), { baseUrl: server.baseUrl, apiKey: "k" });
    const heard: string[] = [];
    const response = await model.generate(request, turn, new AbortController().signal, (delta) => heard.push(delta));
    expect(response).toMatchObject({ text: "", toolCalls: [], finishReason: "stop" });
    expect(heard).toEqual([]);
  });
});
