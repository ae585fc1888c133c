import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { ScriptedModelServer } from "@meshflow/model/testing";
import { APICallError, generateText, jsonSchema, type LanguageModel, type ModelMessage, streamText, tool } from "ai";
import { afterEach, describe, expect, it, vi } from "vitest";

// @ai-sdk/anthropic warns on every call that "claude-test" is an unknown model id; the noise hides real failures.
globalThis.AI_SDK_LOG_WARNINGS = false;

const API_KEY = "sk-scripted";

interface Provider {
  name: string;
  api: "openai" | "anthropic" | "responses";
  model: (server: ScriptedModelServer, apiKey?: string) => LanguageModel;
}

/** The three provider packages meshflow uses, and OpenAI's Responses API (Codex's), each pointed at the scripted server. */
const PROVIDERS: Provider[] = [
  {
    name: "openai",
    api: "openai",
    model: (server, apiKey = API_KEY) => createOpenAI({ baseURL: server.baseUrl, apiKey }).chat("gpt-test"),
  },
  {
    name: "anthropic",
    api: "anthropic",
    model: (server, apiKey = API_KEY) => createAnthropic({ baseURL: server.baseUrl, apiKey })("claude-test"),
  },
  {
    name: "openai responses",
    api: "responses",
    model: (server, apiKey = API_KEY) => createOpenAI({ baseURL: server.baseUrl, apiKey }).responses("gpt-test"),
  },
  {
    name: "openai-compatible",
    api: "openai",
    model: (server, apiKey = API_KEY) =>
      createOpenAICompatible({ name: "local", baseURL: server.baseUrl, apiKey, includeUsage: true })("llama-test"),
  },
];

const tools = {
  weather: tool({
    description: "Current weather in a city",
    inputSchema: jsonSchema<{ city: string; days?: number }>({
      type: "object",
      properties: { city: { type: "string" }, days: { type: "number" } },
      required: ["city"],
      additionalProperties: false,
    }),
  }),
  alert: tool({
    description: "Raise an alert",
    inputSchema: jsonSchema<{ level: string; tags: string[] }>({
      type: "object",
      properties: { level: { type: "string" }, tags: { type: "array", items: { type: "string" } } },
      required: ["level", "tags"],
    }),
  }),
};

let server: ScriptedModelServer | undefined;

async function start(options: Parameters<typeof ScriptedModelServer.start>[0] = {}): Promise<ScriptedModelServer> {
  server = await ScriptedModelServer.start(options);
  return server;
}

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function callError(promise: Promise<unknown>): Promise<APICallError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!APICallError.isInstance(error)) throw new Error(`expected an APICallError, got ${String(error)}`);
  return error;
}

describe("ScriptedModelServer", () => {
  it.each(PROVIDERS)("does answer a scripted text reply and capture the request ($name)", async ({ api, model }) => {
    const s = await start({ script: [{ text: "Hello from the script." }] });

    const result = await generateText({
      model: model(s),
      system: "You are terse.",
      prompt: "Say hello",
      maxRetries: 0,
    });

    expect(result.text).toBe("Hello from the script.");
    expect(result.finishReason).toBe("stop");
    expect(s.remaining()).toBe(0);
    expect(s.requests).toHaveLength(1);
    const [request] = s.requests;
    expect(request).toMatchObject({ api, stream: false, system: "You are terse.", tools: [], toolResults: [] });
    expect(request?.messages).toEqual([{ role: "user", text: "Say hello" }]);
    expect(request?.model).toMatch(/-test$/);
  });

  it.each(PROVIDERS)("does answer tool calls and read the tool results back ($name)", async ({ api, model }) => {
    const s = await start({
      script: [
        {
          toolCalls: [
            { name: "weather", input: { city: "Paris", days: 3 } },
            { name: "alert", input: { level: "high", tags: ["storm"] }, id: "my-call" },
          ],
        },
        { text: "Stormy in Paris." },
      ],
    });
    const prompt: ModelMessage[] = [{ role: "user", content: "Weather in Paris?" }];

    const first = await generateText({ model: model(s), tools, messages: prompt, maxRetries: 0 });

    expect(first.finishReason).toBe("tool-calls");
    const prefix = api === "anthropic" ? "toolu_" : "call_";
    expect(first.toolCalls.map(({ toolCallId, toolName, input }) => ({ toolCallId, toolName, input }))).toEqual([
      { toolCallId: `${prefix}1`, toolName: "weather", input: { city: "Paris", days: 3 } },
      { toolCallId: "my-call", toolName: "alert", input: { level: "high", tags: ["storm"] } },
    ]);
    expect(s.requests[0]?.tools).toEqual([
      {
        name: "weather",
        description: "Current weather in a city",
        inputSchema: expect.objectContaining({ type: "object", required: ["city"] }),
      },
      { name: "alert", description: "Raise an alert", inputSchema: expect.objectContaining({ type: "object" }) },
    ]);

    const second = await generateText({
      model: model(s),
      tools,
      maxRetries: 0,
      messages: [
        ...prompt,
        ...first.response.messages,
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: `${prefix}1`,
              toolName: "weather",
              output: { type: "text", value: "rain, 12°C" },
            },
            {
              type: "tool-result",
              toolCallId: "my-call",
              toolName: "alert",
              output: { type: "error-text", value: "pager down" },
            },
          ],
        },
      ],
    });

    expect(second.text).toBe("Stormy in Paris.");
    const request = s.requests[1];
    expect(request?.toolResults).toEqual([
      { id: `${prefix}1`, name: "weather", text: "rain, 12°C" },
      // Only the Anthropic wire format has an error flag on tool results.
      { id: "my-call", name: "alert", text: "pager down", ...(api === "anthropic" ? { isError: true } : {}) },
    ]);
    expect(request?.messages.map((message) => message.role)).toEqual(
      api !== "anthropic" ? ["user", "assistant", "tool", "tool"] : ["user", "assistant", "tool"],
    );
    expect(request?.messages[1]?.toolCalls).toEqual([
      { id: `${prefix}1`, name: "weather", input: { city: "Paris", days: 3 } },
      { id: "my-call", name: "alert", input: { level: "high", tags: ["storm"] } },
    ]);
  });

  it.each(PROVIDERS)("does report scripted usage and estimate it otherwise ($name)", async ({ model }) => {
    const s = await start({
      script: [{ text: "counted", usage: { inputTokens: 11, outputTokens: 7 } }, { text: "guessed" }],
    });

    const scripted = await generateText({ model: model(s), prompt: "count", maxRetries: 0 });
    const estimated = await generateText({ model: model(s), prompt: "count", maxRetries: 0 });

    expect(scripted.usage).toMatchObject({ inputTokens: 11, outputTokens: 7, totalTokens: 18 });
    const bodyLength = JSON.stringify(s.requests[1]?.body).length;
    expect(estimated.usage.inputTokens).toBe(Math.ceil(bodyLength / 4));
    expect(estimated.usage.outputTokens).toBe(Math.ceil(JSON.stringify({ text: "guessed", toolCalls: [] }).length / 4));
  });

  it.each(PROVIDERS)("does stream text and assemble tool call input from pieces ($name)", async ({ api, model }) => {
    const input = { level: "severe", tags: ["wind", "rain", "hail"] };
    const s = await start({
      script: [
        {
          text: "Raising an alert now.",
          toolCalls: [{ name: "alert", input }],
          usage: { inputTokens: 5, outputTokens: 9 },
        },
      ],
    });

    const result = streamText({ model: model(s), tools, system: "Be careful.", prompt: "Alert!", maxRetries: 0 });
    const parts: string[] = [];
    for await (const part of result.fullStream) parts.push(part.type);

    expect(await result.text).toBe("Raising an alert now.");
    const toolCalls = await result.toolCalls;
    expect(toolCalls.map(({ toolName, input }) => ({ toolName, input }))).toEqual([{ toolName: "alert", input }]);
    expect(await result.finishReason).toBe("tool-calls");
    expect(await result.usage).toMatchObject({ inputTokens: 5, outputTokens: 9 });
    expect(parts.filter((type) => type === "text-delta").length).toBeGreaterThan(1);
    expect(parts.filter((type) => type === "tool-input-delta").length).toBeGreaterThan(1);
    expect(s.requests[0]).toMatchObject({ api, stream: true, system: "Be careful." });
  });

  it.each(PROVIDERS)("does refuse a wrong API key with a 401 ($name)", async ({ api, model }) => {
    const s = await start({ apiKey: API_KEY, script: [{ text: "welcome" }] });

    const error = await callError(generateText({ model: model(s, "sk-wrong"), prompt: "hi", maxRetries: 0 }));

    expect(error.statusCode).toBe(401);
    expect(error.message).toContain("scripted model server: invalid API key for request #0");
    expect(s.requests).toHaveLength(1);
    expect(s.remaining()).toBe(1);
    const header = api === "anthropic" ? { "x-api-key": "sk-wrong" } : { authorization: "Bearer sk-wrong" };
    expect(s.requests[0]?.headers).toMatchObject(header);
    expect((await generateText({ model: model(s), prompt: "hi", maxRetries: 0 })).text).toBe("welcome");
  });

  it.each(PROVIDERS)("does surface an exhausted script as a 500 naming the request ($name)", async ({ api, model }) => {
    const s = await start();

    const error = await callError(generateText({ model: model(s), prompt: "anyone?", maxRetries: 0 }));

    expect(error.statusCode).toBe(500);
    expect(error.message).toBe(`scripted model server: no reply scripted for request #0 (${api})`);
    expect(s.requests).toHaveLength(1);
  });

  it.each(PROVIDERS)("does answer a scripted error with its status and message ($name)", async ({ model }) => {
    const s = await start({ script: [{ error: { status: 429, message: "slow down" } }] });

    const error = await callError(generateText({ model: model(s), prompt: "hi", maxRetries: 0 }));

    expect(error).toMatchObject({ statusCode: 429, message: "slow down", isRetryable: true });
  });

  it("does let a handler decide before the FIFO", async () => {
    const s = await start({
      script: [{ text: "from the FIFO" }],
      handler: (request, index) => (request.system === "special" ? { text: `handled #${index}` } : undefined),
    });
    const model = createOpenAI({ baseURL: s.baseUrl, apiKey: API_KEY }).chat("gpt-test");

    const handled = await generateText({ model, system: "special", prompt: "a", maxRetries: 0 });
    const queued = await generateText({ model, prompt: "b", maxRetries: 0 });

    expect([handled.text, queued.text]).toEqual(["handled #0", "from the FIFO"]);
    s.enqueue({ text: "later" }, { text: "even later" });
    expect(s.remaining()).toBe(2);
  });

  it("does answer malformed JSON with a 400 in each API's error format", async () => {
    const s = await start();
    const post = (path: string) => fetch(`${s.baseUrl}${path}`, { method: "POST", body: "{not json" });

    const openai = await post("/chat/completions");
    const anthropic = await post("/messages");

    expect(openai.status).toBe(400);
    expect(await openai.json()).toMatchObject({ error: { message: expect.stringContaining("not JSON") } });
    expect(anthropic.status).toBe(400);
    expect(await anthropic.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    expect(s.requests).toEqual([]);
  });

  it("does answer the model list probe", async () => {
    const s = await start({ apiKey: API_KEY });

    const listed = await fetch(`${s.baseUrl}/models`, { headers: { "x-api-key": API_KEY } });
    const refused = await fetch(`${s.baseUrl}/models`);

    expect(listed.status).toBe(200);
    expect(await listed.json()).toMatchObject({ data: [{ id: "scripted-model" }] });
    expect(refused.status).toBe(401);
  });

  it("does drop a delayed reply when the client disconnects and keep serving", async () => {
    const s = await start({ script: [{ text: "too late", delayMs: 60_000 }, { text: "on time" }] });
    const model = createAnthropic({ baseURL: s.baseUrl, apiKey: API_KEY })("claude-test");
    const abort = new AbortController();

    const pending = generateText({ model, prompt: "slow", maxRetries: 0, abortSignal: abort.signal });
    await vi.waitFor(() => expect(s.requests).toHaveLength(1), { timeout: 10_000 });
    abort.abort();

    await expect(pending).rejects.toThrow();
    expect((await generateText({ model, prompt: "fast", maxRetries: 0 })).text).toBe("on time");
  });

  it("does close open connections while a reply is delayed", async () => {
    const s = await start({ script: [{ text: "never sent", delayMs: 60_000 }] });
    const model = createOpenAI({ baseURL: s.baseUrl, apiKey: API_KEY }).chat("gpt-test");

    const pending = generateText({ model, prompt: "wait", maxRetries: 0 });
    await vi.waitFor(() => expect(s.requests).toHaveLength(1), { timeout: 10_000 });
    await s.close();

    await expect(pending).rejects.toThrow();
  });
});
