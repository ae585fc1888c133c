import { existsSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";
import {
  loadMcpConfig,
  loadRoutingTable,
  type McpConfig,
  MeshflowError,
  type ModelCatalog,
  type RoutingTable,
} from "@meshflow/core";
import type { Executor } from "@meshflow/queue";
import {
  createToolPlane,
  FileRunStore,
  loadSpecialists,
  type ModelSettings,
  type Specialist,
  type ToolPlane,
} from "@meshflow/runtime";
import { BUILTIN_AGENTS, BUILTIN_SKILLS, mergeSkillsFolders } from "../builtin.js";
import { buildModels } from "./modelSettings.js";

/** Options every run command shares. */
export interface EnvironmentOptions {
  mcpConfig?: string;
  routing?: string;
  agents?: string[] | string;
  store?: string;
  skills?: string;
  /** `inline` (default) or `queue`: tool calls as BullMQ jobs for `flow worker`s. */
  executor?: string;
  /** Redis of the queue (with `executor: "queue"`). */
  redis?: string;
  redisPrefix?: string;
  /** The run's model settings (`--model`, budgets, cassettes). */
  models?: ModelSettings;
  /** A resumed run: a `--record` cassette is added to, not started over. */
  resumed?: boolean;
  /** The guard's rate limit (0 = none); default `DEFAULT_CALLS_PER_MINUTE`. */
  callsPerMinute?: number;
  /**
   * `agents` and `skills` are a resumed run's recorded project folders, to use over the built-in
   * specialists and skills again (the run was started without `--agents` / `--skills`).
   */
  builtin?: boolean;
  /** Servers to start while the rest loads (those the PRD's stories name). */
  warm?: readonly string[];
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
  /**
   * How the run's specialists and skills were chosen, recorded so a resume chooses them the same way:
   * `builtin` when the project's `./agents` and `./skills` (`agents`, `skills`) sit over the built-ins.
   */
  recorded: { agents: string[]; skills: string | undefined; builtin: boolean };
  /** The run's models (stories with a model get `ctx.model`). */
  models?: ModelCatalog;
  /** Closes the plane (MCP servers, executor) and the queue's Redis connection. */
  close(): Promise<void>;
}

const DEFAULT_AGENTS = "agents";

/**
 * The specialist folders of `--agents` (or FLOW_AGENTS), exactly those. Without either: `./agents`
 * (which may be missing) over the specialists @meshflow/cli ships, so a project's `agents/<name>`
 * replaces the built-in of that name and adds new ones.
 */
export function agentPaths(
  agents: string[] | string | undefined,
  overBuiltin = false,
): {
  paths: string[];
  optional: string[];
  builtin: string[];
} {
  if (agents === undefined)
    return { paths: [resolve(DEFAULT_AGENTS)], optional: [resolve(DEFAULT_AGENTS)], builtin: [BUILTIN_AGENTS] };
  const list = typeof agents === "string" ? agents.split(delimiter) : agents.flatMap((a) => a.split(delimiter));
  const paths = list.filter(Boolean).map((p) => resolve(p));
  // A resumed run that used the defaults: its project folders (recorded) over the built-ins again.
  if (overBuiltin) return { paths, optional: paths, builtin: [BUILTIN_AGENTS] };
  return { paths, optional: [], builtin: [] };
}

/**
 * The skills folder: `--skills` (or FLOW_SKILLS), exactly that one (absolute). Without it: `./skills`
 * merged over the skills @meshflow/cli ships (see {@link mergeSkillsFolders}), or the built-in folder
 * alone when the project has none.
 */
export function resolveSkillsDir(option: string | undefined, overBuiltin = false): string | undefined {
  if (option && !overBuiltin) return resolve(option);
  const project = resolve(option ?? "skills");
  const builtin = existsSync(BUILTIN_SKILLS) ? BUILTIN_SKILLS : undefined;
  if (!existsSync(project)) return builtin;
  return builtin ? mergeSkillsFolders(builtin, project) : project;
}

/** Builds the environment of `flow run` / `flow resume`. The caller calls `close()` when done. */
export async function runEnvironment(options: EnvironmentOptions): Promise<RunEnvironment> {
  const routing = loadRoutingTable({ overrideFile: options.routing });
  const mcpConfig = loadMcpConfig({ file: options.mcpConfig });
  const agents = agentPaths(options.agents, options.builtin === true);
  // Without --agents and --skills, the project's folders sit over the built-ins (a resume records that).
  const usesBuiltin = options.builtin === true || (options.agents === undefined && options.skills === undefined);
  const { paths } = agents;
  const store = new FileRunStore(options.store);
  const skillsDir = resolveSkillsDir(options.skills, options.builtin === true);
  const queue = options.executor === "queue" ? await openQueueExecutor(options) : undefined;
  let plane: ToolPlane;
  try {
    const { Guard } = await import("@meshflow/mcp");
    const perMinute = options.callsPerMinute;
    plane = await createToolPlane({
      // One guard for the process; a limit of 0 leaves only the emergency stop.
      guard: new Guard(
        perMinute === undefined ? {} : perMinute > 0 ? { callsPerMinute: perMinute } : { enabled: false },
      ),
      mcpConfig,
      ...(skillsDir ? { skillsDir } : {}),
      cacheFile: join(store.root, "cache", "classifications.json"),
      // Servers' stderr goes to a log file per server, never to the terminal the run draws on.
      pool: { stderrDir: join(store.root, "logs") },
      ...(queue ? { executor: () => queue.executor } : {}),
    });
  } catch (error) {
    await queue?.close();
    throw error;
  }
  // The servers the PRD names start while the specialists load: a server's start-up is usually the
  // longest wait of a short run. The preflight's discovery finds them started (or reports their failure).
  const warming = options.warm?.length ? plane.start?.(options.warm).catch(() => undefined) : undefined;
  await warming;
  let specialists: Map<string, Specialist>;
  let models: ModelCatalog | undefined;
  try {
    const loaded = await loadSpecialists(paths, agents);
    specialists = new Map([...loaded].map(([name, { specialist }]) => [name, specialist]));
    models = options.models ? await buildModels(options.models, options.resumed === true) : undefined;
  } catch (error) {
    await warming;
    await plane.close();
    await queue?.close();
    throw error;
  }
  const close = async () => {
    await warming;
    await plane.close();
    await queue?.close();
  };
  return {
    routing,
    mcpConfig,
    specialists,
    agents: paths,
    store,
    plane,
    skillsDir,
    recorded: usesBuiltin
      ? { agents: paths, skills: resolve(options.skills ?? "skills"), builtin: true }
      : { agents: paths, skills: skillsDir, builtin: false },
    ...(models ? { models } : {}),
    close,
  };
}

/** `--executor queue`: tool calls go to `flow worker`s through the queue on `--redis`. */
async function openQueueExecutor(options: EnvironmentOptions): Promise<{ executor: Executor; close(): Promise<void> }> {
  if (!options.redis)
    throw new MeshflowError(
      "usage",
      "--executor queue needs --redis <url> (or FLOW_REDIS_URL): the Redis the workers use",
    );
  const { assertNoEviction, connectRedis, QueueExecutor } = await import("@meshflow/queue");
  const redis = await connectRedis(options.redis, { role: "worker", name: "meshflow:run" });
  try {
    await assertNoEviction(redis, options.redis);
    const tracing = await (await import("../tracing.js")).processTracing();
    const executor = await QueueExecutor.open({
      redis,
      settings: options.redisPrefix ? { prefix: options.redisPrefix } : {},
      ...(tracing ? { tracing } : {}),
    });
    return {
      executor,
      async close() {
        await executor.close();
        await redis.quit().catch(() => redis.disconnect());
      },
    };
  } catch (error) {
    redis.disconnect();
    throw error;
  }
}
