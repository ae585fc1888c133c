import { existsSync } from "node:fs";
import { delimiter, resolve } from "node:path";
import { loadMcpConfig, MeshflowError, type ModelCatalog } from "@meshflow/core";
import type { Executor } from "@meshflow/mcp";
import { type ModelSettings, RunEnvironment, type RunParts } from "@meshflow/runtime/host";
import { BUILTIN_AGENTS, BUILTIN_SKILLS, mergeSkillsFolders } from "../builtin.js";
import { buildModels } from "./modelSettings.js";
import { onRedis } from "./onRedis.js";

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

/** The environment of `flow run` / `flow resume`: the runtime's, with how its parts were chosen. */
export interface CommandEnvironment {
  /** Routing, specialists, store and tool plane, every part loaded. */
  env: RunEnvironment;
  /** What `startRun` / `resumeRun` / `dryRun` take from it. */
  parts: RunParts;
  /**
   * How the run's specialists and skills were chosen, recorded so a resume chooses them the same way:
   * `builtin` when the project's `./agents` and `./skills` (`agents`, `skills`) sit over the built-ins.
   */
  recorded: { agents: string[]; skills: string | undefined; builtin: boolean };
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

/**
 * Builds the environment of `flow run` / `flow resume` (the runtime's {@link RunEnvironment}, with the
 * queue as executor for `--executor queue`). The caller closes `env` when done.
 */
export async function runEnvironment(options: EnvironmentOptions): Promise<CommandEnvironment> {
  const routingFile = options.routing;
  const mcpConfig = loadMcpConfig({ file: options.mcpConfig });
  const agents = agentPaths(options.agents, options.builtin === true);
  // Without --agents and --skills, the project's folders sit over the built-ins (a resume records that).
  const usesBuiltin = options.builtin === true || (options.agents === undefined && options.skills === undefined);
  const skillsDir = resolveSkillsDir(options.skills, options.builtin === true);
  const queue = options.executor === "queue" ? await openQueueExecutor(options) : undefined;
  const settings = options.models;
  let models: Promise<ModelCatalog> | undefined;
  const env = await RunEnvironment.open(
    {
      mcpConfig,
      ...(routingFile ? { routingFile } : {}),
      agents: agents.paths,
      specialists: agents,
      ...(skillsDir ? { skillsDir } : {}),
      ...(options.store ? { store: options.store } : {}),
      ...(options.callsPerMinute !== undefined ? { callsPerMinute: options.callsPerMinute } : {}),
      ...(queue ? { executor: () => queue.executor, onClose: () => queue.close() } : {}),
      ...(settings ? { models: () => (models ??= buildModels(settings, options.resumed === true)) } : {}),
    },
    { ...(options.warm ? { warm: options.warm } : {}), models: true },
  ).catch(async (error: unknown) => {
    await queue?.close();
    throw error;
  });
  return {
    env,
    parts: await env.parts(),
    recorded: usesBuiltin
      ? { agents: agents.paths, skills: resolve(options.skills ?? "skills"), builtin: true }
      : { agents: agents.paths, skills: skillsDir, builtin: false },
  };
}

/** `--executor queue`: tool calls go to `flow worker`s through the queue on `--redis`. */
async function openQueueExecutor(options: EnvironmentOptions): Promise<{ executor: Executor; close(): Promise<void> }> {
  if (!options.redis)
    throw new MeshflowError(
      "usage",
      "--executor queue needs --redis <url> (or FLOW_REDIS_URL): the Redis the workers use",
    );
  const url = options.redis;
  const { assertNoEviction, connectRedis, QueueExecutor } = await import("@meshflow/queue");
  const redis = await connectRedis(url, { role: "worker", name: "meshflow:run" });
  try {
    await onRedis(url, () => assertNoEviction(redis, url));
    const tracing = await (await import("../tracing.js")).processTracing();
    const executor = await onRedis(url, () =>
      QueueExecutor.open({
        redis,
        settings: options.redisPrefix ? { prefix: options.redisPrefix } : {},
        ...(tracing ? { tracing } : {}),
      }),
    );
    let closing: Promise<void> | undefined;
    // Once: the environment closes it after its plane, and a failed open closes it too.
    const close = async () => {
      await executor.close();
      await redis.quit().catch(() => redis.disconnect());
    };
    return { executor, close: () => (closing ??= close()) };
  } catch (error) {
    redis.disconnect();
    throw error;
  }
}
