import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { MeshflowError } from "@meshflow/core";
import { allowedHostnames, checkFront, readJsonRequest } from "@meshflow/mcp/http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { Gateway } from "./Gateway.js";
import { isLoopbackHost, type ListenAddress } from "./listenAddress.js";

/** The path of the Streamable HTTP endpoint. */
const MCP_PATH = "/mcp";
/** The largest request body read (bigger ones get 413). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Options of {@link serveHttp}. */
export interface HttpServeOptions extends ListenAddress {
  /** `FLOW_SERVE_TOKEN`: every request needs `Authorization: Bearer <token>`. Required off loopback. */
  token?: string | undefined;
  /** More hostnames accepted in `Host` and `Origin` (the loopback names and the bound host always are). */
  allowedHosts?: readonly string[];
  /** A session with no request and no open stream for this long is closed (default 30 min). */
  sessionIdleMs?: number;
  /**
   * Sessions open at once (default {@link DEFAULT_MAX_SESSIONS}): a new client past it closes the
   * session idle the longest; when every session is busy it gets 503.
   */
  maxSessions?: number;
  /** Refused requests: bad host, missing or wrong token. */
  onRefused?: (refusal: { status: number; reason: string; remote: string | undefined }) => void;
}

/** A listening HTTP gateway. */
export interface RunningHttp {
  /** `http://host:port/mcp` (the real port when 0 was asked for). */
  url: string;
  port: number;
  /** Client sessions open now. */
  sessionCount(): number;
  /** The most sessions that were open at once. */
  peakSessions(): number;
  /** Stops listening and closes every session. */
  close(): Promise<void>;
}

/** Default idle time after which a session is closed: one-shot clients rarely say goodbye. */
const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
/** Default cap on open sessions: each holds a server, its tool list and buffers (about 150 KB). */
const DEFAULT_MAX_SESSIONS = 100;

interface HttpSession {
  transport: StreamableHTTPServerTransport;
  close(): Promise<void>;
  /** Epoch ms of the last request. */
  lastSeen: number;
  /** Requests in progress (an SSE stream stays open as long as the client listens). */
  open: number;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function rpcError(code: number, message: string) {
  return { jsonrpc: "2.0", error: { code, message }, id: null };
}

/** Fewest non-space characters of a token that lets `flow serve` bind a non-loopback address. */
export const MIN_SERVE_TOKEN_CHARS = 16;

/** The characters of a token that count towards {@link MIN_SERVE_TOKEN_CHARS}: all but white space. */
export function serveTokenChars(token: string): number {
  return token.replace(/\s/g, "").length;
}

/**
 * Without a token only this machine may connect: binding anything but a loopback address is refused,
 * and so is a token with fewer than {@link MIN_SERVE_TOKEN_CHARS} non-space characters (a usage error
 * that says what to do).
 */
export function assertBindAllowed(host: string, token: string | undefined): void {
  if (isLoopbackHost(host)) return;
  if (!token)
    throw new MeshflowError(
      "usage",
      `refusing to serve on ${host} without a token: set FLOW_SERVE_TOKEN (clients then send "Authorization: Bearer <token>"), or bind a loopback address such as 127.0.0.1`,
    );
  const chars = serveTokenChars(token);
  if (chars < MIN_SERVE_TOKEN_CHARS)
    throw new MeshflowError(
      "usage",
      `refusing to serve on ${host} with a weak token: FLOW_SERVE_TOKEN has ${chars} non-space characters, at least ${MIN_SERVE_TOKEN_CHARS} are needed (for example: openssl rand -hex 24)`,
    );
}

/**
 * Serves the gateway over Streamable HTTP at `/mcp`, one session per client (built from its
 * `initialize` request). With a token every request needs `Authorization: Bearer <token>`
 * (compared in constant time; 401 otherwise); without one only a loopback address may be bound.
 * `Host` and `Origin` are checked against the allowed hostnames (DNS-rebinding protection, 403).
 */
export async function serveHttp(gateway: Gateway, options: HttpServeOptions): Promise<RunningHttp> {
  const token = options.token ? options.token : undefined;
  assertBindAllowed(options.host, token);
  const front = { allowedHostnames: allowedHostnames(options.host, options.allowedHosts), token };

  const sessions = new Map<string, HttpSession>();
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  /** Initialize requests in progress: they become sessions, so they count against the cap. */
  let opening = 0;
  let peak = 0;
  /** Closes the session idle the longest to make room; false when every session is busy. */
  const evictIdlest = (): boolean => {
    let idlest: [string, HttpSession] | undefined;
    for (const entry of sessions)
      if (entry[1].open <= 0 && (!idlest || entry[1].lastSeen < idlest[1].lastSeen)) idlest = entry;
    if (!idlest) return false;
    sessions.delete(idlest[0]);
    void idlest[1].close().catch(() => undefined);
    return true;
  };
  const refuse = (req: IncomingMessage, res: ServerResponse, status: number, reason: string, headers = {}) => {
    options.onRefused?.({ status, reason, remote: req.socket.remoteAddress });
    sendJson(res, status, rpcError(-32000, reason), headers);
  };

  const openSession = async (req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> => {
    if (!isInitializeRequest(body)) {
      refuse(req, res, 400, "no valid session: send an initialize request first (without an mcp-session-id header)");
      return;
    }
    while (sessions.size + opening >= maxSessions)
      if (!evictIdlest())
        return refuse(req, res, 503, `too many sessions (${maxSessions}, all busy): retry later`, {
          "retry-after": "5",
        });
    opening++;
    try {
      const { server } = gateway.openSession(body.params);
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, { transport, close: () => server.close(), lastSeen: Date.now(), open: 0 });
          peak = Math.max(peak, sessions.size);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
      // An initialize the transport refused leaves a server no session will ever reach.
      if (!transport.sessionId) await server.close();
    } finally {
      opening--;
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (path !== MCP_PATH) return sendJson(res, 404, rpcError(-32000, `not found: the MCP endpoint is ${MCP_PATH}`));
    const refusal = checkFront(req, front);
    if (refusal?.status === 403) return refuse(req, res, 403, refusal.reason);
    if (refusal)
      return refuse(req, res, 401, "unauthorized: send Authorization: Bearer <FLOW_SERVE_TOKEN>", {
        "www-authenticate": 'Bearer realm="meshflow"',
      });
    const sessionId = req.headers["mcp-session-id"];
    const session = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
    if (typeof sessionId === "string" && !session)
      return refuse(req, res, 404, `unknown or closed session ${sessionId}: initialize a new one`);
    if (session) {
      session.lastSeen = Date.now();
      session.open++;
      res.once("close", () => {
        session.open--;
        session.lastSeen = Date.now();
      });
    }
    if (req.method === "POST") {
      const read = await readJsonRequest(req, { maxBytes: MAX_BODY_BYTES });
      if (!read.ok) return sendJson(res, read.status, rpcError(read.status === 400 ? -32700 : -32000, read.message));
      if (session) return session.transport.handleRequest(req, res, read.body);
      return openSession(req, res, read.body);
    }
    if (req.method === "GET" || req.method === "DELETE") {
      if (!session) return refuse(req, res, 400, "missing mcp-session-id header");
      return session.transport.handleRequest(req, res);
    }
    return sendJson(res, 405, rpcError(-32000, `method ${req.method ?? ""} not allowed`), {
      allow: "GET, POST, DELETE",
    });
  };

  const http: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        sendJson(res, 500, rpcError(-32603, error instanceof Error ? error.message : String(error)));
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new MeshflowError(
          error.code === "EADDRINUSE" ? "usage" : "server_unreachable",
          `cannot listen on ${options.host}:${options.port}: ${error.message}`,
          { cause: error },
        ),
      ),
    );
    http.listen(options.port, options.host, () => resolve());
  });
  const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, s] of sessions)
        if (s.open <= 0 && now - s.lastSeen > idleMs) {
          sessions.delete(id);
          void s.close().catch(() => undefined);
        }
    },
    Math.min(60_000, Math.max(1_000, idleMs / 2)),
  );
  sweep.unref();
  const port = (http.address() as AddressInfo).port;
  const shown = options.host.includes(":") ? `[${options.host}]` : options.host;
  const url = `http://${shown}:${port}${MCP_PATH}`;
  gateway.setServeInfo({ transport: "http", url, auth: token ? "bearer" : "none" }, () => ({
    open: sessions.size,
    peak,
    max: maxSessions,
  }));
  return {
    url,
    port,
    sessionCount: () => sessions.size,
    peakSessions: () => peak,
    close: async () => {
      clearInterval(sweep);
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(open.map((s) => s.close()));
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}
