import { join, resolve } from "node:path";
import type { CoverageView, ToolRow, ToolsSource, ToolsView } from "@meshflow/console";
import { packageFile } from "@meshflow/core";
import { loadCapabilityOverrides } from "@meshflow/resolver";
import { EXIT, type ExitCode } from "../exitCodes.js";
import { type Output, printJson } from "../output.js";
import { loadToolsContext, type ToolsContext } from "./tools/context.js";
import { coverageOf } from "./tools/coverage.js";

/** Options of `flow console`. */
export interface ConsoleCommandOptions {
  port: number;
  host: string;
  store: string;
  mcpConfig?: string;
  routing?: string;
  agents?: string[] | string;
  skills?: string;
  redis?: string;
  redisPrefix: string;
  cache?: string;
  bullBoard: string;
  prdDepth: number;
  maxPrds: number;
  json?: boolean;
}

/** The `flow` script this process runs, for the Start and Resume buttons (`flow run`, `flow resume` in child processes). */
const FLOW_BIN = packageFile(import.meta.url, "bin/flow.js");

/**
 * The tools and coverage of the console, as `flow tools` and `flow tools coverage` compute them:
 * discovered once on first use, again on refresh (after an override edit).
 */
function toolsSource(options: ConsoleCommandOptions): ToolsSource {
  let loaded: Promise<ToolsContext> | undefined;
  const context = (refresh = false): Promise<ToolsContext> => {
    if (refresh || !loaded) {
      loaded = loadToolsContext(options);
      loaded.catch(() => {
        loaded = undefined;
      });
    }
    return loaded;
  };
  // Overrides land in the project's skills folder (never the merged copy of the built-in skills).
  const overridesFile = join(
    resolve(options.skills ?? process.env.FLOW_SKILLS ?? "skills"),
    "capability-overrides.yaml",
  );
  return {
    async tools(refresh) {
      const ctx = await context(refresh);
      const byName = loadCapabilityOverrides(overridesFile, ctx.catalog, { optional: true })?.byName;
      const tools: ToolRow[] = ctx.tools.map((t) => {
        const c = ctx.index.get(t.qualifiedName);
        const row: ToolRow = {
          qualifiedName: t.qualifiedName,
          server: t.server,
          tool: t.name,
          description: t.description,
          annotations: { ...t.annotations },
          capabilities: c?.capabilities ?? [],
          source: c?.source ?? "none",
          classifier: c?.classifier ?? "",
          reasons: c?.reasons ?? [],
        };
        const key = byName?.has(t.qualifiedName) ? t.qualifiedName : byName?.has(t.name) ? t.name : undefined;
        if (key) row.override = { key, value: byName?.get(key) };
        return row;
      });
      const view: ToolsView = {
        tools,
        capabilities: [...ctx.catalog.capabilities.values()].map((c) => ({ id: c.id, description: c.description })),
        overridesFile,
        failures: ctx.failures.map((f) => ({ server: f.server, code: f.code, message: f.message })),
      };
      return view;
    },
    async coverage(refresh): Promise<CoverageView> {
      const ctx = await context(refresh);
      const report = await coverageOf(options, ctx);
      return { report, failures: ctx.failures.map((f) => ({ server: f.server, code: f.code, message: f.message })) };
    },
  };
}

/** The options of `flow console` every `flow run` it starts gets too (the same MCP config, specialists, skills). */
function runArgs(options: ConsoleCommandOptions): string[] {
  const args: string[] = [];
  if (options.mcpConfig) args.push("--mcp-config", resolve(options.mcpConfig));
  if (options.routing) args.push("--routing", resolve(options.routing));
  const agents = typeof options.agents === "string" ? [options.agents] : (options.agents ?? []);
  if (agents.length) args.push("--agents", ...agents.map((a) => resolve(a)));
  if (options.skills) args.push("--skills", resolve(options.skills));
  return args;
}

/** `flow console`: serves the web console on `--host:--port` until SIGINT or SIGTERM. */
export async function consoleCommand(options: ConsoleCommandOptions, output: Output): Promise<ExitCode> {
  const { assertBindAllowed } = await import("@meshflow/gateway");
  const token = process.env.FLOW_SERVE_TOKEN || undefined;
  assertBindAllowed(options.host, token);
  const { RunLauncher, startConsole } = await import("@meshflow/console");
  const storeRoot = resolve(options.store);
  const running = await startConsole({
    storeRoot,
    host: options.host,
    port: options.port,
    token,
    redis: options.redis ? { url: options.redis, prefix: options.redisPrefix } : undefined,
    bullBoard: options.redis ? options.bullBoard : undefined,
    tools: toolsSource(options),
    prdSearch: { depth: options.prdDepth, maxPrds: options.maxPrds },
    // Runs started from the page run in this folder with the console's own configuration.
    launcher: new RunLauncher({ flowBin: FLOW_BIN, storeRoot, cwd: process.cwd(), runArgs: runArgs(options) }),
  });
  if (options.json) printJson(output, { url: running.url, store: storeRoot });
  else output.out(`console: ${running.url}`);
  output.err(`${token ? "bearer token required" : "no token: loopback only"}; Ctrl-C stops it`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  await running.close();
  return EXIT.ok;
}
