import { existsSync } from "node:fs";
import { join } from "node:path";
import { formatProblem, loadMcpConfig, MeshflowError } from "@meshflow/core";
import type { ToolUniverse } from "@meshflow/export";
import {
  classifyTools,
  DEFAULT_CACHE_FILE,
  EMPTY_CAPABILITY_CATALOG,
  FileClassificationCache,
  loadCapabilityCatalog,
  loadCapabilityOverrides,
  loadSkills,
  prdServers,
  type Skill,
} from "@meshflow/resolver";
import { discoverTools, type ServerFailure } from "../discovery/discoverTools.js";
import { commandRouting, loadValidPrd } from "./prdInput.js";

/** Options of `flow export agents` that decide the tools. */
export interface UniverseOptions {
  mcpConfig?: string;
  skills?: string;
  prd?: string;
  routing?: string;
  cache?: string;
}

/** The tools an export draws from, and where they came from. */
export interface ExportUniverse {
  universe: ToolUniverse;
  /** The MCP config file, or undefined when there is none (then no MCP tools). */
  mcpConfigFile: string | undefined;
  /** Per specialist, its steps' servers in `--prd`. */
  servers: Map<string, string[]> | undefined;
  failures: ServerFailure[];
}

/**
 * Discovers the MCP config's servers (or those a PRD's steps use) and classifies their tools as runs do.
 * Without an MCP config there are no MCP tools; without a skills folder (not named explicitly) no skills.
 */
export async function exportUniverse(options: UniverseOptions): Promise<ExportUniverse> {
  const mcpConfig = loadMcpConfig({ file: options.mcpConfig });
  if (mcpConfig.problems.length)
    throw new MeshflowError("mcp_config_invalid", mcpConfig.problems.map((p) => formatProblem(p)).join("\n"));
  const skillsDir = options.skills ?? process.env.FLOW_SKILLS ?? (existsSync("skills") ? "skills" : undefined);
  let catalog = EMPTY_CAPABILITY_CATALOG;
  let skills: Skill[] = [];
  let overrides: ReturnType<typeof loadCapabilityOverrides> | undefined;
  if (skillsDir) {
    catalog = loadCapabilityCatalog(join(skillsDir, "capabilities.yaml"));
    overrides = loadCapabilityOverrides(join(skillsDir, "capability-overrides.yaml"), catalog, { optional: true });
    skills = loadSkills(skillsDir, { catalog });
  }
  let servers: Map<string, string[]> | undefined;
  if (options.prd) {
    const routing = commandRouting(options);
    servers = prdServers(await loadValidPrd(options.prd, routing), routing);
  }
  const wanted = servers ? [...new Set([...servers.values()].flat())] : [...mcpConfig.servers.keys()];
  const { tools, failures } = mcpConfig.file
    ? await discoverTools(mcpConfig.servers, wanted)
    : { tools: [], failures: [] };
  for (const [name, problems] of mcpConfig.invalid)
    if (wanted.includes(name))
      failures.push({ server: name, code: "mcp_config_invalid", message: problems.map((p) => p.message).join("; ") });
  const cache = new FileClassificationCache(options.cache ?? DEFAULT_CACHE_FILE);
  try {
    const index = await classifyTools(tools, { catalog, cache, ...(overrides ? { overrides } : {}) });
    return { universe: { tools, skills, index }, mcpConfigFile: mcpConfig.file, servers, failures };
  } finally {
    await cache.close();
  }
}
