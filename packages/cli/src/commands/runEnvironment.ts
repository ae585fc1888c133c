import { existsSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";
import { loadMcpConfig, loadRoutingTable, type McpConfig, type RoutingTable } from "@meshflow/core";
import { createToolPlane, FileRunStore, loadSpecialists, type Specialist, type ToolPlane } from "@meshflow/runtime";

/** Options every run command shares. */
export interface EnvironmentOptions {
  mcpConfig?: string;
  routing?: string;
  agents?: string[] | string;
  store?: string;
  skills?: string;
}

/** What a run needs from the command line: routing, MCP config, specialists, tools and the store. */
export interface RunEnvironment {
  routing: RoutingTable;
  mcpConfig: McpConfig;
  specialists: Map<string, Specialist>;
  /** Absolute specialist paths, recorded so a resume loads the same ones. */
  agents: string[];
  store: FileRunStore;
  plane: ToolPlane;
  /** The skills folder in use (absolute), recorded for resume. */
  skillsDir: string | undefined;
}

const DEFAULT_AGENTS = "agents";

/** The specialist folders of `--agents` (or FLOW_AGENTS); without either, `./agents`, which may be missing. */
export function agentPaths(agents: string[] | string | undefined): { paths: string[]; optional: string[] } {
  if (agents === undefined) return { paths: [resolve(DEFAULT_AGENTS)], optional: [resolve(DEFAULT_AGENTS)] };
  const list = typeof agents === "string" ? agents.split(delimiter) : agents.flatMap((a) => a.split(delimiter));
  return { paths: list.filter(Boolean).map((p) => resolve(p)), optional: [] };
}

/** Builds the environment of `flow run` / `flow resume`. The caller closes `plane`. */
export async function runEnvironment(options: EnvironmentOptions): Promise<RunEnvironment> {
  const routing = loadRoutingTable({ overrideFile: options.routing });
  const mcpConfig = loadMcpConfig({ file: options.mcpConfig });
  const { paths, optional } = agentPaths(options.agents);
  const loaded = await loadSpecialists(paths, { optional });
  const specialists = new Map([...loaded].map(([name, { specialist }]) => [name, specialist]));
  const store = new FileRunStore(options.store);
  const skills = options.skills ? resolve(options.skills) : resolve("skills");
  const skillsDir = options.skills || existsSync(skills) ? skills : undefined;
  const plane = await createToolPlane({
    mcpConfig,
    ...(skillsDir ? { skillsDir } : {}),
    cacheFile: join(store.root, "cache", "classifications.json"),
    // Servers' stderr goes to a log file per server, never to the terminal the run draws on.
    pool: { stderrDir: join(store.root, "logs") },
  });
  return { routing, mcpConfig, specialists, agents: paths, store, plane, skillsDir };
}
