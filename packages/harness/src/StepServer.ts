import { randomBytes } from "node:crypto";
import { createServer, type Server as HttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { ToolResult } from "@meshflow/core";
import { bearerMatches, rebindingProblem } from "@meshflow/mcp/server";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
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

/** Host names a loopback request may carry (DNS rebinding: anything else is refused). */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["127.0.0.1", "localhost"]);

/**
 * The MCP server named `meshflow` that serves one step's tools to its harness: Streamable HTTP on
 * 127.0.0.1 at a random port, a bearer token made for this step, refused once the step is over.
 * Stateless: each request is answered by a fresh MCP server over the same tools.
 */
export class StepServer {
  readonly #http: HttpServer;
  readonly #tools: readonly StepServerTool[];
  readonly #call: StepServerCall;
  readonly #token = randomBytes(TOKEN_BYTES).toString("base64url");
  #url = "";
  #open = true;

  private constructor(tools: readonly StepServerTool[], call: StepServerCall) {
    this.#tools = tools;
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
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    const refused = rebindingProblem(req, LOOPBACK_HOSTS);
    if (refused) return void res.writeHead(403, { "content-type": "text/plain" }).end(refused);
    if (!this.#open || !bearerMatches(req, this.#token))
      return void res.writeHead(401, { "content-type": "text/plain" }).end("unauthorized");
    if (path !== "/mcp") return void res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    const server = new Server({ name: "meshflow", version: "1" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: this.#tools.map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: { type: "object", ...t.inputSchema },
        ...(t.annotations ? { annotations: t.annotations } : {}),
      })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const args = (request.params.arguments ?? {}) as Record<string, unknown>;
      const result = await this.#call(request.params.name, args);
      // A refusal's code leads its text, as the model loop shows it (`error (guard_locked): …`).
      const lead = result.isError && result.code ? [{ type: "text" as const, text: `error (${result.code})` }] : [];
      return {
        content: [...lead, ...result.content] as CallToolResult["content"],
        ...(result.isError ? { isError: true } : {}),
      };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  }
}
