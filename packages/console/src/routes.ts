import { writeFileSync } from "node:fs";
import { MeshflowError, type RunEvent } from "@meshflow/core";
import type { Guard } from "@meshflow/mcp";
import { APPROVAL_ROUTES } from "./approvalRoutes.js";
import { readJsonBody, sendJson } from "./internal/http.js";
import { listProjectPrds, projectPrd } from "./projectPrds.js";
import type { RunDetail } from "./RunCatalog.js";
import type { UnstartedRun } from "./RunLauncher.js";
import { OverrideRequestSchema, StartRunRequestSchema, StopRequestSchema } from "./requests.js";
import { parseBody, type Route, type RouteContext } from "./routeTypes.js";
import { toolLatency } from "./toolLatency.js";
import { writeOverride } from "./writeOverride.js";

function notConfigured(what: string, how: string): MeshflowError {
  return new MeshflowError("usage", `${what} is not configured: start flow console ${how}`);
}

/** Refuses to start anything while the console's guard is locked. */
function assertUnlocked(guard: Guard): void {
  const state = guard.state();
  if (state.locked)
    throw new MeshflowError(
      "guard_locked",
      `the console's guard is locked (${state.lockReason ?? "emergency stop"}): unlock it on the Health page first`,
    );
}

const notFound = (error: unknown): boolean => error instanceof MeshflowError && error.code === "run_not_found";

/**
 * A run of the store, with what became of the newest command this console started for it when there
 * is one (a Resume that failed at once); or, for a run this console started that is not in the store,
 * what became of its command (still starting, or ended before it wrote the run); `run_not_found` for
 * any other id.
 */
async function runOrLaunch(ctx: RouteContext, runId: string): Promise<RunDetail | UnstartedRun> {
  const withLaunch = (detail: RunDetail): RunDetail => {
    const launch = ctx.launcher?.launch(runId);
    // A copy: the catalog keeps a finished run's detail for the next request.
    return launch ? { ...detail, launch } : detail;
  };
  try {
    return withLaunch(await ctx.catalog.get(runId));
  } catch (error) {
    const launch = notFound(error) ? ctx.launcher?.launch(runId) : undefined;
    if (!launch) throw error;
    if (launch.state === "starting") return { runId, launch };
    // The command may have written its run just before it ended, after the store was read.
    return await ctx.catalog.get(runId).then(withLaunch, (again: unknown) => {
      if (notFound(again)) return { runId, launch };
      throw again;
    });
  }
}

/** The console's JSON API (documented in docs/console-api.md). */
const ROUTES: readonly Route[] = [
  {
    name: "info",
    method: "GET",
    path: "/api/info",
    async handle(ctx, _p, _req, res) {
      sendJson(res, 200, ctx.info);
    },
  },
  {
    name: "runs",
    method: "GET",
    path: "/api/runs",
    async handle(ctx, _p, _req, res, query) {
      const runs = await ctx.catalog.list();
      const limit = Number(query.get("limit") ?? 0);
      sendJson(res, 200, { total: runs.length, runs: limit > 0 ? runs.slice(0, limit) : runs });
    },
  },
  {
    name: "start-run",
    method: "POST",
    path: "/api/runs",
    async handle(ctx, _p, req, res) {
      const body = parseBody(StartRunRequestSchema, await readJsonBody(req), "POST /api/runs");
      if (!ctx.launcher) throw notConfigured("starting runs", "from the flow command line");
      assertUnlocked(ctx.guard);
      const prd = projectPrd(ctx.launcher.cwd, body.prd, ctx.prdSearch);
      sendJson(res, 202, { launched: ctx.launcher.start({ ...body, prd }), prd });
    },
  },
  {
    name: "prds",
    method: "GET",
    path: "/api/prds",
    async handle(ctx, _p, _req, res) {
      if (!ctx.launcher) throw notConfigured("starting runs", "from the flow command line");
      sendJson(res, 200, listProjectPrds(ctx.launcher.cwd, ctx.prdSearch));
    },
  },
  {
    name: "workers",
    method: "GET",
    path: "/api/runs/:runId/workers",
    async handle(ctx, params, _req, res) {
      // Without Redis, or with a Redis that does not answer, the timeline packs stories into lanes itself.
      const workers = ctx.queue ? await ctx.queue.workers(params.runId ?? "").catch(() => ({})) : {};
      sendJson(res, 200, { workers });
    },
  },
  {
    name: "run",
    method: "GET",
    path: "/api/runs/:runId",
    async handle(ctx, params, _req, res) {
      sendJson(res, 200, await runOrLaunch(ctx, params.runId ?? ""));
    },
  },
  {
    name: "resume",
    method: "POST",
    path: "/api/runs/:runId/resume",
    async handle(ctx, params, req, res) {
      await readJsonBody(req);
      if (!ctx.launcher) throw notConfigured("resuming runs", "from the flow command line");
      assertUnlocked(ctx.guard);
      const { run } = await ctx.catalog.get(params.runId ?? "");
      // flow resume's own rules, checked first so the answer says why at once.
      if (run.status === "passed" || run.status === "failed")
        throw new MeshflowError("usage", `run ${run.runId} already finished (${run.status}); nothing to resume`);
      if (run.status === "running")
        throw new MeshflowError("run_locked", `run ${run.runId} is running (its process is alive); nothing to resume`);
      sendJson(res, 202, { launched: ctx.launcher.resume(run.runId) });
    },
  },
  {
    name: "stop-run",
    method: "POST",
    path: "/api/runs/:runId/stop",
    async handle(ctx, params, req, res) {
      const body = parseBody(StopRequestSchema, await readJsonBody(req), "POST /api/runs/:runId/stop");
      const { run } = await ctx.catalog.get(params.runId ?? "");
      if (run.status !== "running")
        throw new MeshflowError("usage", `run ${run.runId} is not running (${run.status}); nothing to stop`);
      // The run's process (flow run or flow resume, wherever it was started) watches for this file and
      // stops as Ctrl-C does; the console never signals a process it did not start.
      const file = ctx.catalog.store.stopRequestFile(run.runId);
      writeFileSync(file, `${body.reason}\n`, { mode: 0o600 });
      sendJson(res, 202, { runId: run.runId, requested: true, file });
    },
  },
  {
    name: "stream",
    method: "GET",
    path: "/api/stream",
    async handle(ctx, _p, _req, res) {
      ctx.watcher.attach(res);
    },
  },
  {
    name: "queue",
    method: "GET",
    path: "/api/queue",
    async handle(ctx, _p, _req, res, query) {
      if (!ctx.queue) throw notConfigured("Redis", "with --redis <url>");
      sendJson(res, 200, await ctx.queue.snapshot(Number(query.get("limit") ?? 100) || 100));
    },
  },
  {
    name: "tools",
    method: "GET",
    path: "/api/tools",
    async handle(ctx, _p, _req, res, query) {
      if (!ctx.tools) throw notConfigured("tool discovery", "where an MCP config is found (--mcp-config)");
      sendJson(res, 200, await ctx.tools.tools(query.get("refresh") === "1"));
    },
  },
  {
    name: "override",
    method: "PUT",
    path: "/api/tools/:tool/capabilities",
    async handle(ctx, params, req, res) {
      const body = parseBody(OverrideRequestSchema, await readJsonBody(req), "PUT /api/tools/:tool/capabilities");
      if (!ctx.tools) throw notConfigured("tool discovery", "where an MCP config is found (--mcp-config)");
      const view = await ctx.tools.tools();
      const tool = params.tool ?? "";
      const known = view.tools.some((t) => t.qualifiedName === tool || t.tool === tool);
      if (!known)
        throw new MeshflowError(
          "tool_not_found",
          `no discovered tool is named "${tool}" (use server__tool or a bare name)`,
        );
      writeOverride(
        view.overridesFile,
        { tool, capabilities: body.capabilities },
        view.capabilities.map((c) => c.id),
      );
      const fresh = await ctx.tools.tools(true);
      ctx.watcher.broadcast("console", { changed: "tools" });
      sendJson(res, 200, {
        file: view.overridesFile,
        tool,
        capabilities: body.capabilities,
        tools: fresh.tools.filter((t) => t.qualifiedName === tool || t.tool === tool),
      });
    },
  },
  {
    name: "coverage",
    method: "GET",
    path: "/api/coverage",
    async handle(ctx, _p, _req, res, query) {
      if (!ctx.tools) throw notConfigured("tool discovery", "where an MCP config is found (--mcp-config)");
      sendJson(res, 200, await ctx.tools.coverage(query.get("refresh") === "1"));
    },
  },
  {
    name: "health",
    method: "GET",
    path: "/api/health",
    async handle(ctx, _p, _req, res) {
      const rows = (await ctx.catalog.list()).slice(0, ctx.healthRuns);
      const events: RunEvent[][] = [];
      for (const row of rows)
        events.push(
          await ctx.catalog.store.read(row.runId).then(
            (r) => r.events,
            () => [],
          ),
        );
      sendJson(res, 200, {
        guard: ctx.guard.state(),
        launched: ctx.launcher?.running() ?? [],
        ended: ctx.launcher?.ended() ?? [],
        runsRead: rows.length,
        tools: toolLatency(events),
      });
    },
  },
  {
    name: "stop",
    method: "POST",
    path: "/api/guard/stop",
    async handle(ctx, _p, req, res) {
      const body = parseBody(StopRequestSchema, await readJsonBody(req), "POST /api/guard/stop");
      ctx.guard.emergencyStop(body.reason);
      const interrupted = ctx.launcher?.interruptAll() ?? [];
      ctx.watcher.broadcast("console", { changed: "guard" });
      sendJson(res, 200, { guard: ctx.guard.state(), interrupted });
    },
  },
  {
    name: "unlock",
    method: "POST",
    path: "/api/guard/unlock",
    async handle(ctx, _p, req, res) {
      await readJsonBody(req);
      const was = ctx.guard.state();
      ctx.guard.unlock();
      ctx.watcher.broadcast("console", { changed: "guard" });
      sendJson(res, 200, { guard: ctx.guard.state(), wasLocked: was.locked });
    },
  },
  ...APPROVAL_ROUTES,
];

/** The route and its parameters for a method and path, or undefined. */
export function matchRoute(
  method: string,
  pathname: string,
): { route: Route; params: Record<string, string> } | { methods: string[] } | undefined {
  const parts = pathname.split("/").filter(Boolean);
  const methods: string[] = [];
  for (const route of ROUTES) {
    const pattern = route.path.split("/").filter(Boolean);
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const ok = pattern.every((seg, i) => {
      const part = parts[i] ?? "";
      if (seg.startsWith(":")) {
        try {
          params[seg.slice(1)] = decodeURIComponent(part);
        } catch {
          return false;
        }
        return true;
      }
      return seg === part;
    });
    if (!ok) continue;
    if (route.method === method) return { route, params };
    methods.push(route.method);
  }
  return methods.length ? { methods } : undefined;
}
