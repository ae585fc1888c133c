import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { MeshflowError, toMeshflowError } from "@meshflow/core";
import { Guard } from "@meshflow/mcp";
import { allowedHostnames, checkFront } from "@meshflow/mcp/http";
import { requestToken, sendError, sendJson, TOKEN_COOKIE } from "./internal/http.js";
import { serveStatic, WEB_ROOT } from "./internal/staticFiles.js";
import { DEFAULT_PRD_SEARCH, type PrdSearchBounds } from "./projectPrds.js";
import { QueueView } from "./QueueView.js";
import { RunCatalog } from "./RunCatalog.js";
import type { RunLauncher } from "./RunLauncher.js";
import { DEFAULT_WATCH_INTERVAL_MS, RunWatcher } from "./RunWatcher.js";
import { matchRoute } from "./routes.js";
import type { RouteContext } from "./routeTypes.js";
import type { ToolsSource } from "./ToolsSource.js";

/** The port `flow console` listens on unless told otherwise. */
const DEFAULT_CONSOLE_PORT = 4100;
/** The host `flow console` binds unless told otherwise: loopback. */
const DEFAULT_CONSOLE_HOST = "127.0.0.1";

/** Options of {@link startConsole}. */
export interface ConsoleOptions {
  /** The run store folder (`--store`, `.flow`). */
  storeRoot: string;
  host?: string;
  /** 0 picks a free port. Default {@link DEFAULT_CONSOLE_PORT}. */
  port?: number;
  /**
   * Every request must carry it (`Authorization: Bearer …`, or the cookie set by opening
   * `/?token=…`). The caller decides whether a host may be bound without one (`flow console`
   * follows `flow serve`: loopback only).
   */
  token?: string | undefined;
  /** Redis of the queues, for the Queue page. */
  redis?: { url: string; prefix: string } | undefined;
  /** Bull Board's address (`flow dashboard`), linked from the Queue page. */
  bullBoard?: string | undefined;
  tools?: ToolsSource | undefined;
  /**
   * Starts `flow run` (a PRD of its project folder, from the Runs page) and `flow resume` (the Resume
   * button); without it both answer a usage error.
   */
  launcher?: RunLauncher | undefined;
  /** The console's guard (a fresh one by default). */
  guard?: Guard;
  /** More hostnames requests may name in `Host`/`Origin`. */
  allowedHosts?: readonly string[];
  /** Runs (newest first) the Health page reads for latencies (default 200). */
  healthRuns?: number;
  /**
   * How far the Start a run form looks for the project's PRDs (`GET /api/prds`); each bound not given
   * is {@link DEFAULT_PRD_SEARCH}'s. `depth` is 0 or more, the others 1 or more (`usage` otherwise).
   */
  prdSearch?: Partial<PrdSearchBounds> | undefined;
  watchIntervalMs?: number;
  /** Folder of the built front end (default: the package's `dist/web`). */
  webRoot?: string;
  /** Shown by `GET /api/info`. */
  version?: string;
}

/** The bounds of {@link ConsoleOptions.prdSearch} over the defaults: `usage` naming a bound that is not a whole number in range. */
function prdSearchOf(given: Partial<PrdSearchBounds> = {}): PrdSearchBounds {
  const bounds: PrdSearchBounds = { ...DEFAULT_PRD_SEARCH };
  for (const key of Object.keys(bounds) as Array<keyof PrdSearchBounds>) {
    const value = given[key];
    if (value === undefined) continue;
    const least = key === "depth" ? 0 : 1;
    if (!Number.isSafeInteger(value) || value < least)
      throw new MeshflowError("usage", `prdSearch.${key} must be a whole number of ${least} or more, not ${value}`);
    bounds[key] = value;
  }
  return bounds;
}

/** A console that listens. */
export interface RunningConsole {
  /** `http://host:port/`. */
  url: string;
  port: number;
  guard: Guard;
  close(): Promise<void>;
}

/**
 * Serves the web console and its JSON API (`/api/…`, see docs/console-api.md) until closed: the
 * run store's runs with their trees, live updates over server-sent events, the queue (with Redis),
 * tools, coverage and capability overrides (with a {@link ToolsSource}), and the guard.
 *
 * @example
 * const console = await startConsole({ storeRoot: ".flow", port: 0 });
 * console.url; // http://127.0.0.1:41234/
 */
export async function startConsole(options: ConsoleOptions): Promise<RunningConsole> {
  const host = options.host ?? DEFAULT_CONSOLE_HOST;
  const prdSearch = prdSearchOf(options.prdSearch);
  const token = options.token || undefined;
  const catalog = new RunCatalog(options.storeRoot);
  const watcher = new RunWatcher(catalog, options.watchIntervalMs ?? DEFAULT_WATCH_INTERVAL_MS);
  const guard = options.guard ?? new Guard({ enabled: false });
  const queue = options.redis
    ? new QueueView({
        url: options.redis.url,
        prefix: options.redis.prefix,
        ...(options.bullBoard ? { bullBoard: options.bullBoard } : {}),
      })
    : undefined;
  const allowed = allowedHostnames(host, options.allowedHosts);
  const ctx: RouteContext = {
    catalog,
    watcher,
    guard,
    launcher: options.launcher,
    queue,
    tools: options.tools,
    healthRuns: options.healthRuns ?? 200,
    prdSearch,
    info: {
      name: "meshflow console",
      version: options.version ?? null,
      store: catalog.store.root,
      redis: queue ? options.redis?.prefix : null,
      bullBoard: options.bullBoard ?? null,
      tools: options.tools !== undefined,
      resume: options.launcher !== undefined,
      start: options.launcher !== undefined,
      auth: token ? "bearer" : "none",
    },
  };
  const webRoot = options.webRoot ?? WEB_ROOT;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://console.invalid");
    // Opening /?token=… once keeps the token in a cookie for the page and its API calls.
    const queryToken = url.pathname === "/" ? (url.searchParams.get("token") ?? undefined) : undefined;
    const refusal = checkFront(req, {
      allowedHostnames: allowed,
      token,
      presentedToken: (r) => queryToken ?? requestToken(r),
    });
    if (refusal?.status === 403) return sendJson(res, 403, { error: { code: "usage", message: refusal.reason } });
    if (refusal)
      return sendJson(res, 401, {
        error: {
          code: "usage",
          message:
            "unauthorized: send Authorization: Bearer <FLOW_SERVE_TOKEN>, or open /?token=<FLOW_SERVE_TOKEN> once",
        },
      });
    if (token && queryToken !== undefined) {
      res.writeHead(303, {
        location: "/",
        "set-cookie": `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`,
      });
      res.end();
      return;
    }
    if (!url.pathname.startsWith("/api/")) {
      if (req.method !== "GET" && req.method !== "HEAD")
        return sendJson(res, 405, { error: { code: "usage", message: `method ${req.method} not allowed` } });
      return serveStatic(res, url.pathname, webRoot);
    }
    const match = matchRoute(req.method ?? "GET", url.pathname);
    if (!match)
      return sendJson(res, 404, { error: { code: "usage", message: `no API at ${url.pathname} (see GET /api/info)` } });
    if ("methods" in match) {
      res.setHeader("allow", match.methods.join(", "));
      return sendJson(res, 405, {
        error: {
          code: "usage",
          message: `${req.method} not allowed on ${url.pathname}; use ${match.methods.join(", ")}`,
        },
      });
    }
    await match.route.handle(ctx, match.params, req, res, url.searchParams);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const err = toMeshflowError(error);
      if (!res.headersSent) sendError(res, err);
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new MeshflowError(
          error.code === "EADDRINUSE" ? "usage" : "server_unreachable",
          `cannot listen on ${host}:${options.port ?? DEFAULT_CONSOLE_PORT}: ${error.message}`,
          { cause: error },
        ),
      ),
    );
    server.listen(options.port ?? DEFAULT_CONSOLE_PORT, host, () => resolve());
  });
  watcher.start();
  // A command that ends before it writes its run changes no file the watcher sees: its page is told here.
  const stopListening = options.launcher?.onEnded((ended) => watcher.broadcast("runs", { changed: [ended.runId] }));
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}/`,
    port,
    guard,
    async close() {
      stopListening?.();
      watcher.stop();
      await options.launcher?.close();
      await queue?.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
