import type { McpConfig, ToolDescriptor } from "@meshflow/core";
import type { ServerFailure } from "../../discovery/discoverTools.js";

/** What the configured MCP servers offer, by capability of the catalog. */
export interface ServerCapabilities {
  /** Each server that listed its tools → the capabilities its tools have (config order). */
  servers: ReadonlyMap<string, ReadonlySet<string>>;
  /** Servers that could not be listed (or are unusable in the config): their capabilities are unknown. */
  failures: ServerFailure[];
  /** The capability catalog the tools were classified with. */
  catalog: string;
}

/** How {@link serverCapabilities} finds and waits for the servers. */
export interface ServerCapabilitiesOptions {
  /** The skills folder whose `capabilities.yaml` (and overrides) classify the tools. */
  skillsDir: string | undefined;
  /** Per server, for connecting and for listing. */
  timeoutMs?: number;
}

/**
 * Starts every usable server of `config`, lists its tools and classifies them with the capability
 * catalog (as `flow tools classify` does, without its cache): which capabilities each server offers.
 */
export async function serverCapabilities(
  config: McpConfig,
  options: ServerCapabilitiesOptions,
): Promise<ServerCapabilities> {
  const [{ discoverTools }, { classifyTools, EMPTY_CAPABILITY_CATALOG, loadSkillsFolder }] = await Promise.all([
    import("../../discovery/discoverTools.js"),
    import("@meshflow/resolver"),
  ]);
  const skills = options.skillsDir ? loadSkillsFolder(options.skillsDir, { optionalCatalog: true }) : undefined;
  const catalog = skills?.catalog ?? EMPTY_CAPABILITY_CATALOG;
  const names = [...config.servers.keys()];
  const { tools, failures } = await discoverTools(config.servers, names, {
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  });
  failures.push(...invalidServers(config));
  const index = await classifyTools(tools, { catalog, overrides: skills?.overrides });
  const servers = offeredBy(names, tools, failures, (tool) => index.capabilitiesOf(tool.qualifiedName));
  return { servers, failures, catalog: catalog.file };
}

/** The config's entries that are no usable server, as failures: what they offer is unknown. */
export function invalidServers(config: Pick<McpConfig, "invalid">): ServerFailure[] {
  return [...config.invalid].map(([server, problems]) => ({
    server,
    code: "mcp_config_invalid",
    message: problems.map((p) => p.message).join("; "),
  }));
}

/** Each of `names` that listed its tools (none of `failures`) → the capabilities its tools have. */
export function offeredBy(
  names: readonly string[],
  tools: readonly ToolDescriptor[],
  failures: readonly ServerFailure[],
  capabilitiesOf: (tool: ToolDescriptor) => readonly string[],
): Map<string, Set<string>> {
  const failed = new Set(failures.map((f) => f.server));
  const offered = new Map<string, Set<string>>();
  for (const name of names) if (!failed.has(name)) offered.set(name, new Set());
  for (const tool of tools) for (const capability of capabilitiesOf(tool)) offered.get(tool.server)?.add(capability);
  return offered;
}
