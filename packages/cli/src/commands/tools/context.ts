import { resolve } from "node:path";
import type { McpConfig, ToolDescriptor } from "@meshflow/core";
import {
  type AliasMap,
  type CapabilityCatalog,
  type CapabilityIndex,
  type ClassificationCache,
  classifyTools,
  DEFAULT_CACHE_FILE,
  FileClassificationCache,
  loadSkillsFolder,
  type Skill,
  type SpecialistInfo,
  skillsForSpecialist,
} from "@meshflow/resolver";
import { discoverTools, type ServerFailure } from "../../discovery/discoverTools.js";
import { requireMcpConfig } from "../../mcpSetup.js";
import type { Output } from "../../output.js";
import { onRedis } from "../onRedis.js";
import { resolveSkillsDir } from "../runEnvironment.js";

/** Options every `flow tools` command shares. */
export interface ToolsOptions {
  json?: boolean;
  mcpConfig?: string;
  skills?: string;
  redis?: string;
  redisPrefix?: string;
  cache?: string;
}

/** Everything the `flow tools` commands work with. */
export interface ToolsContext {
  mcpConfig: McpConfig;
  skillsDir: string;
  catalog: CapabilityCatalog;
  skills: Skill[];
  aliases: AliasMap;
  tools: ToolDescriptor[];
  failures: ServerFailure[];
  index: CapabilityIndex;
  cache: { kind: string; location: string };
}

/**
 * Loads the skills folder's data (catalog, overrides, skills, alias maps), discovers the tools of
 * `servers` (default: every configured one) and classifies them through the configured cache.
 */
export async function loadToolsContext(options: ToolsOptions, servers?: readonly string[]): Promise<ToolsContext> {
  const mcpConfig = requireMcpConfig(options.mcpConfig);
  const skillsDir = resolveSkillsDir(options.skills ?? process.env.FLOW_SKILLS) ?? resolve("skills");
  const { catalog, overrides, skills, aliases } = loadSkillsFolder(skillsDir);
  const { tools, failures } = await discoverTools(mcpConfig.servers, servers ?? [...mcpConfig.servers.keys()]);
  for (const [name, problems] of mcpConfig.invalid)
    if (!servers || servers.includes(name))
      failures.push({ server: name, code: "mcp_config_invalid", message: problems.map((p) => p.message).join("; ") });
  const redisUrl = options.redis ?? process.env.FLOW_REDIS_URL;
  // The queue package (and with it BullMQ and ioredis) loads only when a Redis cache is asked for.
  const cache: ClassificationCache = redisUrl
    ? await (await import("@meshflow/queue")).RedisClassificationCache.connect(
        redisUrl,
        options.redisPrefix ? { prefix: options.redisPrefix } : {},
      )
    : new FileClassificationCache(options.cache ?? DEFAULT_CACHE_FILE);
  try {
    const classify = () => classifyTools(tools, { catalog, cache, overrides });
    const index = await (redisUrl ? onRedis(redisUrl, classify) : classify());
    return {
      mcpConfig,
      skillsDir,
      catalog,
      skills,
      aliases,
      tools,
      failures,
      index,
      cache: { kind: cache.kind, location: cache.location },
    };
  } finally {
    await cache.close();
  }
}

/** A specialist as the CLI knows it: its name and the skills whose frontmatter lists it. */
export function specialistInfo(name: string, skills: readonly Skill[]): SpecialistInfo {
  const attached = skillsForSpecialist(skills, name).map((s) => s.name);
  return attached.length ? { name, skills: attached } : { name };
}

/** Prints server failures on stderr, one per line. */
export function printFailures(output: Output, failures: readonly ServerFailure[]): void {
  for (const failure of failures) output.err(`flow: ${failure.message}`);
}
