import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { anthropicWire } from "./anthropicWire.js";
import { lowerCaseHeaders, readBody, sendJson } from "./http.js";
import { openaiWire } from "./openaiWire.js";
import { PromptCache } from "./PromptCache.js";
import { type ReceivedRequest, trailingToolResults } from "./ReceivedRequest.js";
import { resolveReply } from "./resolveReply.js";
import { responsesWire } from "./responsesWire.js";
import type { ScriptedReply } from "./ScriptedReply.js";
import { isRecord, splitPieces, type WireFormat } from "./WireFormat.js";
import { writeStream } from "./writeStream.js";

/** How a {@link ScriptedModelServer} answers and where it listens. */
export interface ScriptedModelServerOptions {
  /** Replies served in order, one per request (FIFO). */
  script?: ScriptedReply[];
  /** Decides the reply instead of the FIFO when given (the FIFO is used when it returns undefined). */
  handler?: (request: ReceivedRequest, index: number) => ScriptedReply | undefined | Promise<ScriptedReply | undefined>;
  /** When set, requests must carry it (OpenAI `Authorization: Bearer <key>`, Anthropic `x-api-key: <key>`), else 401 in that API's error format. */
  apiKey?: string;
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /** Port to listen on; default 0 (a free port). */
  port?: number;
  /**
   * Tokens a request may hold (at the server's rate of about four characters a token): a longer one is
   * refused with 400 and the provider's "prompt is too long" message, before any reply is taken.
   */
  contextWindow?: number;
  /** The shortest prefix the modelled prompt cache keeps, in tokens (default 1,024, as both providers). */
  cacheMinTokens?: number;
}

/** The model APIs the server speaks, by path; adding one is one wire format plus one entry. */
const ROUTES: Readonly<Record<string, WireFormat>> = {
  "/v1/chat/completions": openaiWire,
  "/v1/messages": anthropicWire,
  "/v1/responses": responsesWire,
};

/** The model list `GET /v1/models` answers, readable as an OpenAI and as an Anthropic list. */
const MODEL_LIST = {
  object: "list",
  data: [
    {
      id: "scripted-model",
      object: "model",
      type: "model",
      created: 0,
      created_at: "1970-01-01T00:00:00Z",
      owned_by: "meshflow",
      display_name: "Scripted model",
    },
  ],
  has_more: false,
  first_id: "scripted-model",
  last_id: "scripted-model",
};

/**
 * A real HTTP server that plays a model: it speaks OpenAI Chat Completions (`POST /v1/chat/completions`),
 * OpenAI Responses (`POST /v1/responses`) and Anthropic Messages (`POST /v1/messages`), streaming (SSE) and not, and answers each request with the next scripted
 * reply. Tests reach it through the real AI SDK provider packages at {@link ScriptedModelServer.baseUrl}.
 *
 * @example
 * const server = await ScriptedModelServer.start({ script: [{ text: "hello" }] });
 * const model = createOpenAI({ baseURL: server.baseUrl, apiKey: "test" }).chat("gpt-test");
 * const { text } = await generateText({ model, prompt: "hi" }); // "hello"
 * await server.close();
 */
export class ScriptedModelServer {
  /** Every model request received (parsed ones, including those refused with 401), in arrival order. */
  readonly requests: ReceivedRequest[] = [];
  readonly #script: ScriptedReply[];
  readonly #options: ScriptedModelServerOptions;
  readonly #server: Server;
  readonly #inFlight = new Set<AbortController>();
  readonly #cache: PromptCache;
  #url = "";
  #toolCallCount = 0;

  private constructor(options: ScriptedModelServerOptions) {
    this.#options = options;
    this.#cache = new PromptCache(options.cacheMinTokens);
    this.#script = [...(options.script ?? [])];
    this.#server = createServer((request, response) => {
      void this.#handle(request, response);
    });
  }

  /** Starts a server listening on `host:port` (default 127.0.0.1 and a free port). */
  static async start(options: ScriptedModelServerOptions = {}): Promise<ScriptedModelServer> {
    const instance = new ScriptedModelServer(options);
    const server = instance.#server;
    const host = options.host ?? "127.0.0.1";
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    const address = server.address();
    if (!isRecord(address) || typeof address.port !== "number") {
      throw new Error(`scripted model server: expected a TCP address after listening, found ${String(address)}`);
    }
    instance.#url = `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`;
    return instance;
  }

  /** `http://<host>:<port>`. */
  get url(): string {
    return this.#url;
  }

  /** `${url}/v1`: the `baseURL` for `createOpenAI`, `createAnthropic` and `createOpenAICompatible`. */
  get baseUrl(): string {
    return `${this.#url}/v1`;
  }

  /** Appends replies to the FIFO. */
  enqueue(...replies: ScriptedReply[]): void {
    this.#script.push(...replies);
  }

  /** How many replies are left in the FIFO. */
  remaining(): number {
    return this.#script.length;
  }

  /** Stops listening, abandons delayed replies and closes every open connection; closing twice is harmless. */
  async close(): Promise<void> {
    for (const controller of this.#inFlight) controller.abort();
    if (!this.#server.listening) return;
    const closed = new Promise<void>((resolve, reject) =>
      this.#server.close((error) => (error ? reject(error) : resolve())),
    );
    this.#server.closeAllConnections();
    await closed;
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const controller = new AbortController();
    const started = performance.now();
    const exchange: { received?: ReceivedRequest } = {};
    this.#inFlight.add(controller);
    // `close` fires when the answer is done or the client went away; either way nothing more is written.
    response.on("close", () => {
      controller.abort();
      this.#inFlight.delete(controller);
      if (exchange.received) exchange.received.serverMs = performance.now() - started;
    });
    try {
      await this.#route(request, response, controller.signal, exchange);
    } catch (error) {
      const message = `scripted model server: internal error: ${error instanceof Error ? error.message : String(error)}`;
      if (response.headersSent) response.destroy();
      else sendJson(response, 500, openaiWire.errorBody(500, message));
    }
  }

  async #route(
    request: IncomingMessage,
    response: ServerResponse,
    signal: AbortSignal,
    exchange: { received?: ReceivedRequest },
  ): Promise<void> {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    const headers = lowerCaseHeaders(request);
    if (request.method === "GET" && path === "/v1/models") {
      const { apiKey } = this.#options;
      const authorized =
        apiKey === undefined || openaiWire.isAuthorized(headers, apiKey) || anthropicWire.isAuthorized(headers, apiKey);
      if (authorized) sendJson(response, 200, MODEL_LIST);
      else sendJson(response, 401, openaiWire.errorBody(401, "scripted model server: invalid API key"));
      return;
    }
    const wire = ROUTES[path];
    if (wire === undefined || request.method !== "POST") {
      const known = [...Object.keys(ROUTES).map((route) => `POST ${route}`), "GET /v1/models"].join(", ");
      const message = `scripted model server: no route for ${request.method} ${path} (expected ${known})`;
      sendJson(response, 404, (wire ?? openaiWire).errorBody(404, message));
      return;
    }

    const raw = await readBody(request);
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      sendJson(response, 400, wire.errorBody(400, `scripted model server: request body is not JSON: ${reason}`));
      return;
    }
    if (!isRecord(body)) {
      sendJson(response, 400, wire.errorBody(400, "scripted model server: request body is not a JSON object"));
      return;
    }

    const parsed = wire.parseRequest(body);
    const received: ReceivedRequest = {
      api: wire.api,
      stream: parsed.stream,
      model: parsed.model,
      headers,
      body,
      system: parsed.system,
      messages: parsed.messages,
      tools: parsed.tools,
      toolResults: trailingToolResults(parsed.messages),
    };
    const index = this.requests.push(received) - 1;
    exchange.received = received;
    const inputTokens = Math.ceil(raw.length / 4);

    const { apiKey } = this.#options;
    if (apiKey !== undefined && !wire.isAuthorized(headers, apiKey)) {
      const expected = wire.api === "anthropic" ? "x-api-key: <key>" : "Authorization: Bearer <key>";
      const message = `scripted model server: invalid API key for request #${index} (${wire.api}; expected ${expected})`;
      sendJson(response, 401, wire.errorBody(401, message));
      return;
    }

    const window = this.#options.contextWindow;
    if (window !== undefined && inputTokens > window) {
      const message = wire.tooLong?.(inputTokens, window) ?? `the request has ${inputTokens} tokens, over ${window}`;
      sendJson(response, 400, wire.errorBody(400, message));
      return;
    }

    let reply: ScriptedReply | undefined;
    try {
      reply = (await this.#options.handler?.(received, index)) ?? this.#script.shift();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const message = `scripted model server: handler threw for request #${index} (${wire.api}): ${reason}`;
      sendJson(response, 500, wire.errorBody(500, message));
      return;
    }
    if (reply === undefined) {
      const message = `scripted model server: no reply scripted for request #${index} (${wire.api})`;
      sendJson(response, 500, wire.errorBody(500, message));
      return;
    }

    if (reply.delayMs !== undefined && reply.delayMs > 0) {
      try {
        await sleep(reply.delayMs, undefined, { signal });
      } catch {
        return; // the client disconnected or the server closed: nobody is waiting for this answer
      }
    }
    if (signal.aborted) return;
    if ("error" in reply) {
      const { status, message, headers } = reply.error;
      sendJson(response, status, wire.errorBody(status, message), headers);
      return;
    }

    // Only an answered request touches the cache: a refused one (429, 529) was never processed.
    const blocks = wire.cacheStyle && wire.cacheBlocks?.(body);
    const cache =
      blocks && wire.cacheStyle ? this.#cache.use(parsed.model, wire.cacheStyle, blocks) : { read: 0, write: 0 };
    const resolved = resolveReply(reply, {
      wire,
      inputTokens,
      cache,
      nextCallNumber: () => ++this.#toolCallCount,
    });
    received.usage = resolved.usage;
    const context = { model: parsed.model, sequence: index + 1, body };
    if (!parsed.stream) {
      sendJson(response, 200, wire.response(resolved, context));
      return;
    }
    await writeStream(response, wire.streamFrames(resolved, context), {
      firstText: splitPieces(resolved.text)[0],
      ...(reply.hold ? { hold: reply.hold } : {}),
      signal,
    });
  }
}
