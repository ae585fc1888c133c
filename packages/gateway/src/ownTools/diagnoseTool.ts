import { diagnose } from "@meshflow/mcp";
import { CORE_TOOLSET, defineLocalTool, jsonResult, type ServedTool, type ToolsetServer } from "@meshflow/mcp/server";
import { z } from "zod";
import { scrubSecrets } from "../internal/scrub.js";

/** How the gateway is reached, for the report (never the token itself). */
export interface ServeInfo {
  transport: "stdio" | "http" | "in-process";
  /** `http://host:port/mcp` for HTTP. */
  url?: string;
  auth: "bearer" | "none";
  /** HTTP sessions: open now, the most open at once, the cap (`--max-sessions`). */
  sessions?: { open: number; peak: number; max: number };
  /** Runs held in memory: in progress, and ended ones remembered (older ones are in the run store only). */
  runsInMemory?: { active: number; finished: number };
}

/** What `flow_diagnose` reads. */
export interface DiagnoseContext {
  hub: ToolsetServer;
  serve: () => ServeInfo;
  /** Values that must never appear in a report (the bearer token). */
  secrets: readonly string[];
  version: string;
  /** Runs in progress in this process. */
  activeRuns?: () => { runId: string; prd: string; startedAt: string; lastEvent?: string }[];
}

/**
 * `flow_diagnose`: every downstream server (reachable, tools, version, config with secrets masked),
 * the toolsets, the open sessions and their modes, the guard and the metrics. It answers when
 * servers are down (that is what it is for) and is never guarded.
 */
export function diagnoseTool(context: DiagnoseContext): ServedTool {
  const { hub } = context;
  return defineLocalTool({
    name: "flow_diagnose",
    toolset: CORE_TOOLSET,
    title: "Diagnose the gateway",
    rich: "Reports the health of meshflow's gateway: each downstream MCP server (reachable or not, tool count, version, error and stderr tail), the toolsets, the open client sessions and their modes, the guard (locked? why?) and per-tool metrics with warnings. Use it when tools fail or are missing; it works while the guard is locked and never shows a secret.",
    minimal: "Report servers, toolsets, sessions, guard and metrics (no secrets).",
    input: { verbose: z.boolean().default(true).describe("per-tool metrics too") },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: async ({ verbose }) => {
      const report = await diagnose({ pool: hub.pool, guard: hub.guard, metrics: hub.metrics, verbose });
      const toolsets = hub.registry.all().map((t) => ({
        name: t.name,
        kind: t.kind,
        toolCount: t.tools.length,
        alwaysLoaded: t.alwaysLoaded,
        ...(t.unavailable ? { unavailable: t.unavailable } : {}),
      }));
      const sessions = hub.sessions().map(({ session }) => ({
        client: session.client.name,
        clientVersion: session.client.version,
        mode: session.client.mode,
        modeSource: session.client.source,
        annotationAware: session.client.annotationAware,
        toolsets: session.loadedToolsets(),
        toolCount: session.toolCount(),
      }));
      const body = scrubSecrets(
        {
          gateway: {
            version: context.version,
            ...context.serve(),
            pendingConfirmationTokens: hub.confirmation.pending(),
          },
          ...report,
          toolsets,
          sessions,
          activeRuns: context.activeRuns?.() ?? [],
        },
        context.secrets,
      );
      const down = report.servers.filter((s) => !s.reachable).map((s) => s.server);
      const guard = report.guard?.locked ? `LOCKED (${report.guard.lockReason ?? "no reason"})` : "unlocked";
      const summary = `${report.servers.length - down.length}/${report.servers.length} servers reachable${down.length ? ` (down: ${down.join(", ")})` : ""}; guard ${guard}; ${report.metrics?.totalToolCalls ?? 0} tool calls this session`;
      return jsonResult(body, `${summary}\n\n${JSON.stringify(body, null, 2)}`);
    },
  });
}
