import { randomBytes } from "node:crypto";
import { createServer, type Server as HttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { ToolResult } from "@meshflow/core";
import { checkFront, readRequestBody } from "@meshflow/mcp/http";
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import type { StepServerAddress } from "./HarnessAdapter.js";

/** A tool the step server offers: the name the harness sees, what it does, its JSON Schema and hints. */
export interface StepServerTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** Runs one call of the harness (every call is the step's `ctx.call`, or a finishing tool). */
export type StepServerCall = (name: string, args: Record<string, unknown>) => Promise<ToolResult>;

/** Bytes of random token: at least 32, as the token of one step only. */
const TOKEN_BYTES = 32;
/** The largest request body read (a call's arguments); larger ones are refused before parsing. */
const MAX_STEP_REQUEST_BYTES = 16 * 1024 * 1024;

/** Host names a loopback request may carry (DNS rebinding: anything else is refused). */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["127.0.0.1", "localhost"]);

type JsonRpcId = string | number;
interface JsonRpcRequest {
  jsonrpc: "2.0";
  id?: JsonRpcId;
  method: string;
  params?: Record<string, unknown>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function rpcError(id: JsonRpcId | null, code: number, message: string) {
  return { jsonrpc: "2.0" as const, id, error: { code, message } };
}

/**
 * The MCP server named `meshflow` that serves one step's tools to its harness: Streamable HTTP on
 * 127.0.0.1 at a random port, a bearer token made for this step, refused once the step is over.
 * It answers `initialize`, `ping`, `tools/list` and `tools/call` with JSON (no session, no stream: a
 * step's server has nothing to push), which costs a call a fraction of what a general MCP server
 * built per request does.
 */
export class StepServer {
  readonly #http: HttpServer;
  readonly #tools: readonly StepServerTool[];
  readonly #call: StepServerCall;
  readonly #token = randomBytes(TOKEN_BYTES).toString("base64url");
  #url = "";
  #open = true;

  private constructor(tools: readonly StepServerTool[], call: StepServerCall) {
    this.#tools = tools.map((t) => ({ ...t, inputSchema: { type: "object", ...t.inputSchema } }));
    this.#call = call;
    this.#http = createServer((req, res) => {
      void this.#handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
    });
  }

  /** Starts listening on 127.0.0.1 at a free port. */
  static async start(tools: readonly StepServerTool[], call: StepServerCall): Promise<StepServer> {
    const server = new StepServer(tools, call);
    await new Promise<void>((resolve, reject) => {
      server.#http.once("error", reject);
      server.#http.listen(0, "127.0.0.1", () => {
        server.#http.off("error", reject);
        resolve();
      });
    });
    const address = server.#http.address();
    const port = typeof address === "object" && address ? address.port : 0;
    server.#url = `http://127.0.0.1:${port}/mcp`;
    return server;
  }

  /** Where the harness reaches it, and its token. */
  get address(): StepServerAddress {
    return { url: this.#url, token: this.#token };
  }

  /** Refuses every request from now on and stops listening. */
  async close(): Promise<void> {
    this.#open = false;
    const closed = new Promise<void>((resolve) => this.#http.close(() => resolve()));
    this.#http.closeAllConnections();
    await closed;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = (status: number, body: string) =>
      void res.writeHead(status, { "content-type": "text/plain" }).end(body);
    const refused = checkFront(req, { allowedHostnames: LOOPBACK_HOSTS, token: this.#token });
    if (refused) return text(refused.status, refused.reason);
    if (!this.#open) return text(401, "unauthorized");
    if (new URL(req.url ?? "/", "http://127.0.0.1").pathname !== "/mcp") return text(404, "not found");
    // No server-initiated messages and no sessions: a GET stream and a DELETE are not offered.
    if (req.method !== "POST") {
      res.writeHead(405, { allow: "POST", "content-type": "text/plain" }).end("method not allowed");
      return;
    }
    const read = await readRequestBody(req, MAX_STEP_REQUEST_BYTES);
    if (!read.ok) return text(413, `request over ${MAX_STEP_REQUEST_BYTES} bytes`);
    let message: unknown;
    try {
      message = JSON.parse(read.body);
    } catch {
      return this.#json(res, 400, rpcError(null, -32700, "parse error: the body is not JSON"));
    }
    const batch = Array.isArray(message);
    const requests = batch ? (message as unknown[]) : [message];
    const answers = [];
    for (const request of requests) {
      const answer = await this.#answer(request);
      if (answer) answers.push(answer);
    }
    if (!answers.length) return void res.writeHead(202).end();
    this.#json(res, 200, batch ? answers : answers[0]);
  }

  /** The answer to one JSON-RPC message; undefined for a notification. */
  async #answer(message: unknown) {
    if (!isObject(message) || message.jsonrpc !== "2.0" || typeof message.method !== "string")
      return rpcError(null, -32600, "invalid request: expected a JSON-RPC 2.0 message with a method");
    const request = message as unknown as JsonRpcRequest;
    if (request.id === undefined) return undefined;
    const params = isObject(request.params) ? request.params : {};
    const result = (value: unknown) => ({ jsonrpc: "2.0" as const, id: request.id as JsonRpcId, result: value });
    switch (request.method) {
      case "initialize": {
        const asked = typeof params.protocolVersion === "string" ? params.protocolVersion : "";
        return result({
          protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION,
          capabilities: { tools: {} },
          serverInfo: { name: "meshflow", version: "1" },
          instructions:
            "The tools of one meshflow step. Finish by calling step_pass, step_fail or step_block with a summary.",
        });
      }
      case "ping":
        return result({});
      case "tools/list":
        return result({ tools: this.#tools });
      case "tools/call": {
        if (typeof params.name !== "string") return rpcError(request.id, -32602, "tools/call needs a tool name");
        const args = isObject(params.arguments) ? params.arguments : {};
        const outcome = await this.#call(params.name, args);
        // A refusal's code leads its text, as the model loop shows it (`error (guard_locked): …`).
        const lead = outcome.isError && outcome.code ? [{ type: "text", text: `error (${outcome.code})` }] : [];
        return result({ content: [...lead, ...outcome.content], ...(outcome.isError ? { isError: true } : {}) });
      }
      default:
        return rpcError(request.id, -32601, `method not found: ${request.method}`);
    }
  }

  #json(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  }
}
