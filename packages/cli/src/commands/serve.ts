import { existsSync } from "node:fs";
import { formatProblem, loadMcpConfig, MeshflowError } from "@meshflow/core";
import {
  assertBindAllowed,
  Gateway,
  type GatewayEvent,
  MIN_SERVE_TOKEN_CHARS,
  parseListenAddress,
  type RunningHttp,
  type ServedConnection,
  serveHttp,
  serveStdio,
  serveTokenChars,
} from "@meshflow/gateway";
import { loadToolsetConfig, parseClientMode } from "@meshflow/mcp/server";
import { EXIT, type ExitCode } from "../exitCodes.js";
import { serverLogDir } from "../mcpSetup.js";
import { type Output, plural } from "../output.js";
import { processTracing } from "../tracing.js";
import { catalogsByModel, type ModelFlags } from "./modelSettings.js";
import { agentPaths, resolveSkillsDir } from "./runEnvironment.js";

/** Options of `flow serve`. */
export interface ServeCommandOptions extends ModelFlags {
  stdio?: boolean;
  http?: string;
  toolsets?: string;
  toolsetConfig?: string;
  callsPerMinute?: number;
  allowedHost?: string[];
  /** `--max-sessions`: HTTP sessions open at once. */
  maxSessions?: number;
  /** `--session-idle`: minutes after which an idle HTTP session is closed. */
  sessionIdle?: number;
  mcpConfig?: string;
  routing?: string;
  agents?: string[] | string;
  store?: string;
  skills?: string;
}

/** The default toolset config, used when present. */
const DEFAULT_TOOLSET_CONFIG = "toolset-config.json";

function parseToolsets(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const names = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (!names.length) throw new MeshflowError("usage", "--toolsets: expected comma-separated toolset names, or all");
  return names;
}

/** One stderr line per event worth a person's attention. */
function describeEvent(event: GatewayEvent): string | undefined {
  switch (event.type) {
    case "session.opened": {
      const c = event.client;
      const warn = event.warnings.map((w) => `; warning: ${w}`).join("");
      return `session: ${c.name}${c.version ? ` ${c.version}` : ""}, mode ${c.mode} (${c.source}), ${c.annotationAware ? "annotation-aware" : "confirmation tokens"}, ${plural(event.toolCount, "tool")} from ${event.toolsets.join(", ")}${warn}`;
    }
    case "toolset.enabled":
      return `${event.client}: enable_toolset ${event.outcome.toolset}: ${event.outcome.status} (${plural(event.outcome.toolCount, "tool")})`;
    case "toolset.discovered":
      return event.error ? `toolset ${event.toolset} unavailable: ${event.error}` : undefined;
    case "tool.refused":
      return `refused ${event.tool}: ${event.code}`;
    case "guard.locked":
      return `guard locked${event.automatic ? " automatically" : ""}: ${event.reason}`;
    case "guard.unlocked":
      return "guard unlocked";
    case "server.crashed":
      return `server ${event.server} crashed: ${event.message}`;
    default:
      return undefined;
  }
}

function waitForSignal(): { promise: Promise<void>; dispose(): void } {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  const stop = () => resolve();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return {
    promise,
    dispose: () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
    },
  };
}

/**
 * `flow serve`: starts the gateway (discovering every configured server), then serves one client
 * over stdio or many over Streamable HTTP until stdin ends or a signal arrives.
 */
export async function serveCommand(options: ServeCommandOptions, output: Output): Promise<ExitCode> {
  if (options.stdio && options.http) throw new MeshflowError("usage", "choose one of --stdio and --http");
  const listen = options.http !== undefined ? parseListenAddress(options.http) : undefined;
  const token = process.env.FLOW_SERVE_TOKEN || undefined;
  if (listen) assertBindAllowed(listen.host, token);
  const modeOverride = parseClientMode(process.env.FLOW_CLIENT_MODE);
  const toolsets = parseToolsets(options.toolsets);
  const toolsetFile =
    options.toolsetConfig ?? (existsSync(DEFAULT_TOOLSET_CONFIG) ? DEFAULT_TOOLSET_CONFIG : undefined);
  const toolsetConfig = toolsetFile ? { config: loadToolsetConfig(toolsetFile), file: toolsetFile } : undefined;
  const mcpConfig = loadMcpConfig({ file: options.mcpConfig });
  if (mcpConfig.problems.length)
    throw new MeshflowError("mcp_config_invalid", mcpConfig.problems.map((p) => formatProblem(p)).join("\n"));
  for (const problems of mcpConfig.invalid.values())
    for (const p of problems) output.err(`flow serve: ${formatProblem(p)}`);
  const log = (line: string) => output.err(`flow serve: ${line}`);
  // The same specialists and skills as `flow run`: --agents exactly, else ./agents over the built-ins.
  const agents = agentPaths(options.agents);
  const skillsDir = resolveSkillsDir(options.skills);
  // A weak token is refused off loopback (assertBindAllowed above); on loopback it only earns a warning.
  const tokenChars = token === undefined ? undefined : serveTokenChars(token);
  if (listen && tokenChars !== undefined && tokenChars < MIN_SERVE_TOKEN_CHARS)
    log(
      `warning: FLOW_SERVE_TOKEN has ${tokenChars} non-space characters; at least ${MIN_SERVE_TOKEN_CHARS} are needed to serve beyond loopback (for example: openssl rand -hex 24)`,
    );

  const tracing = await processTracing();
  const gateway = await Gateway.start({
    servers: mcpConfig.servers,
    pool: { stderrDir: serverLogDir() },
    ...(toolsetConfig ? { toolsetConfig } : {}),
    ...(toolsets ? { toolsets } : {}),
    ...(modeOverride ? { modeOverride } : {}),
    ...(options.callsPerMinute !== undefined ? { callsPerMinute: options.callsPerMinute } : {}),
    secrets: token ? [token] : [],
    runs: {
      mcpConfig,
      ...(options.routing ? { routingFile: options.routing } : {}),
      agents: agents.paths,
      specialists: agents,
      ...(options.store ? { store: options.store } : {}),
      ...(skillsDir ? { skillsDir } : {}),
      models: catalogsByModel(options),
      // Each run flow_run_prd starts is traced when OpenTelemetry is configured.
      ...(tracing ? { traceRun: (prd: string) => tracing.runSink({ prd }) } : {}),
    },
    onEvent: (event) => {
      const line = describeEvent(event);
      if (line) log(line);
    },
  });
  const signal = waitForSignal();
  let running: RunningHttp | undefined;
  let stdio: ServedConnection | undefined;
  try {
    const registry = gateway.hub.registry;
    const summary = `${plural(registry.all().length, "toolset")} (${registry
      .all()
      .map((t) => `${t.name} ${t.unavailable ? "unavailable" : t.tools.length}`)
      .join(", ")}), MCP config: ${mcpConfig.file ?? "none"}`;
    if (listen) {
      running = await serveHttp(gateway, {
        ...listen,
        token,
        ...(options.allowedHost ? { allowedHosts: options.allowedHost } : {}),
        ...(options.maxSessions ? { maxSessions: options.maxSessions } : {}),
        ...(options.sessionIdle ? { sessionIdleMs: options.sessionIdle * 60_000 } : {}),
        onRefused: (r) => log(`HTTP ${r.status} for ${r.remote ?? "?"}: ${r.reason}`),
      });
      log(`listening on ${running.url} (${token ? "bearer token required" : "no token: loopback only"}); ${summary}`);
      await signal.promise;
    } else {
      stdio = await serveStdio(gateway);
      log(`serving over stdio; ${summary}`);
      await Promise.race([stdio.closed, signal.promise]);
    }
  } finally {
    signal.dispose();
    await running?.close();
    await stdio?.close();
    await gateway.close();
  }
  return EXIT.ok;
}
