import { join, resolve } from "node:path";
import { loadRoutingTable, type McpConfig, type ModelCatalog, type RoutingTable } from "@meshflow/core";
import type { ClientPool, ClientPoolOptions, Executor, Guard, ToolHandler } from "@meshflow/mcp";
import { createToolPlane } from "./createToolPlane.js";
import type { RunDependencies } from "./runSession.js";
import type { Specialist } from "./specialists/defineSpecialist.js";
import { type LoadedSpecialist, type LoadSpecialistsOptions, loadSpecialists } from "./specialists/loadSpecialists.js";
import { FileRunStore } from "./store/FileRunStore.js";
import type { ToolPlane } from "./ToolPlane.js";

/** Where a host (`flow run`, `flow worker`, `flow serve`) finds what its runs need. */
export interface RunEnvironmentOptions {
  /** The MCP servers runs use. */
  mcpConfig: McpConfig;
  /** Step → specialist routing merged over the default (YAML or JSON). */
  routingFile?: string;
  /** Specialist folders or files, loaded in order (see {@link loadSpecialists}). */
  agents: readonly string[];
  /** Which of `agents` may be missing, and the built-in specialist folders under them. */
  specialists?: LoadSpecialistsOptions;
  /** Skills folder (SKILL.md files, capabilities.yaml, aliases/). */
  skillsDir?: string;
  /** The run store, or its folder (default `FLOW_HOME` or `.flow`). */
  store?: FileRunStore | string;
  /**
   * The process's one guard (rate limit, emergency stop), when something else must see it too (the
   * gateway's diagnose and unlock tools, a worker's call jobs). Default: a guard of the environment's own.
   */
  guard?: Guard;
  /** The rate limit of a guard of its own (0 = none; default `DEFAULT_CALLS_PER_MINUTE`). */
  callsPerMinute?: number;
  /** Client pool settings; default: each server's stderr in `<store>/logs`. */
  pool?: ClientPoolOptions;
  /** A pool owned by the host (a worker shares its pool with its call jobs); not closed here. */
  clientPool?: ClientPool;
  /** Where tool calls run; default in this process. A queue executor is the host's to open. */
  executor?: (chain: ToolHandler) => Executor;
  /** The models of a run started with a model or harness of its own (undefined: the host's defaults). Without it, runs have none. */
  models?: (choice: RunThinking | undefined) => Promise<ModelCatalog | undefined>;
  /** Runs after the tool plane is closed: what the host opened for the environment (a queue's Redis). */
  onClose?: () => Promise<void>;
}

/** What a run started by a queued job or an MCP client thinks with, over the host's defaults. */
export interface RunThinking {
  /** `--model` of that run (`flow enqueue --model`, `flow_run_prd`'s `model`). */
  model?: string;
  /** `--harness` of that run. */
  harness?: string;
}

/** What a run is started with, from a loaded environment (the host adds `onEvent` and its own choices). */
export type RunParts = Pick<RunDependencies, "plane" | "store" | "specialists" | "routing" | "mcpConfig" | "models">;

/**
 * The one environment of runs, built the same way by `flow run`/`flow resume`, `flow worker` and
 * `flow serve`: routing table, specialists, run store, and one tool plane (client pool, middleware
 * chain with the guard, resolver, skills, executor) for every run of the process. Parts load on first
 * use (a gateway that never runs a PRD loads no specialist); {@link RunEnvironment.open} loads them all
 * at once so a command fails before it starts anything.
 *
 * @example
 * const env = await RunEnvironment.open({ mcpConfig: loadMcpConfig(), agents: ["agents"] });
 * try {
 *   const session = await startRun({ ...(await env.parts()), onEvent: console.log }, { prdFile, record });
 *   await session.done;
 * } finally {
 *   await env.close();
 * }
 */
export class RunEnvironment {
  /** The run store. */
  readonly store: FileRunStore;
  /** Absolute specialist paths, recorded with a run so a resume loads the same ones. */
  readonly agents: string[];
  /** The skills folder in use (absolute), if any. */
  readonly skillsDir: string | undefined;
  /** The absolute routing file in use, if any. */
  readonly routingFile: string | undefined;
  readonly #options: RunEnvironmentOptions;
  #routing: RoutingTable | undefined;
  #specialists: Promise<Map<string, LoadedSpecialist>> | undefined;
  #plane: Promise<ToolPlane> | undefined;
  #closed = false;

  constructor(options: RunEnvironmentOptions) {
    this.#options = options;
    this.store = options.store instanceof FileRunStore ? options.store : new FileRunStore(options.store);
    this.agents = options.agents.map((a) => resolve(a));
    this.skillsDir = options.skillsDir ? resolve(options.skillsDir) : undefined;
    this.routingFile = options.routingFile ? resolve(options.routingFile) : undefined;
  }

  /**
   * An environment with its parts loaded: routing, tool plane, specialists, and with `load.models` the
   * default models. `load.warm` names servers to start while the specialists load (those the PRD names:
   * a server's start-up is usually the longest wait of a short run). On a failure, what was opened is
   * closed again.
   */
  static async open(
    options: RunEnvironmentOptions,
    load: { warm?: readonly string[]; models?: boolean } = {},
  ): Promise<RunEnvironment> {
    const env = new RunEnvironment(options);
    try {
      env.routing();
      const plane = await env.plane();
      // The preflight's discovery finds them started, or reports their failure.
      if (load.warm?.length) await plane.start?.(load.warm).catch(() => undefined);
      await env.specialistFiles();
      if (load.models) await env.models(undefined);
      return env;
    } catch (error) {
      await env.close();
      throw error;
    }
  }

  /** The MCP config runs use. */
  get mcpConfig(): McpConfig {
    return this.#options.mcpConfig;
  }

  /** The step → specialist routing table, loaded on first use. */
  routing(): RoutingTable {
    this.#routing ??= loadRoutingTable({ overrideFile: this.#options.routingFile });
    return this.#routing;
  }

  /** Loaded specialists by name, with their files (a failed load is tried again on the next call). */
  specialistFiles(): Promise<Map<string, LoadedSpecialist>> {
    this.#specialists ??= loadSpecialists(this.agents, this.#options.specialists).catch((error: unknown) => {
      this.#specialists = undefined;
      throw error;
    });
    return this.#specialists;
  }

  /** Loaded specialists by name. */
  async specialists(): Promise<Map<string, Specialist>> {
    return new Map([...(await this.specialistFiles())].map(([name, loaded]) => [name, loaded.specialist]));
  }

  /** The models of a run started with `choice` (undefined: the host's defaults); none without a model source. */
  async models(choice: RunThinking | undefined): Promise<ModelCatalog | undefined> {
    return this.#options.models ? await this.#options.models(choice) : undefined;
  }

  /** The shared tool plane of runs, made on first use. */
  plane(): Promise<ToolPlane> {
    this.#plane ??= this.#makePlane().catch((error: unknown) => {
      this.#plane = undefined;
      throw error;
    });
    return this.#plane;
  }

  /** What `startRun`/`resumeRun`/`dryRun` need, for a run started with `choice` (undefined: the defaults). */
  async parts(choice?: RunThinking): Promise<RunParts> {
    const [plane, specialists, models] = await Promise.all([this.plane(), this.specialists(), this.models(choice)]);
    return {
      plane,
      store: this.store,
      specialists,
      routing: this.routing(),
      mcpConfig: this.mcpConfig,
      ...(models ? { models } : {}),
    };
  }

  /** Closes the tool plane (MCP servers, executor), then what the host opened for it. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const plane = this.#plane;
    this.#plane = undefined;
    try {
      if (plane) await (await plane.catch(() => undefined))?.close();
    } finally {
      await this.#options.onClose?.();
    }
  }

  async #makePlane(): Promise<ToolPlane> {
    const o = this.#options;
    const guard = o.guard ?? (await ownGuard(o.callsPerMinute));
    return createToolPlane({
      mcpConfig: o.mcpConfig,
      ...(this.skillsDir ? { skillsDir: this.skillsDir } : {}),
      cacheFile: join(this.store.root, "cache", "classifications.json"),
      // Servers' stderr goes to a log file per server, never to a terminal a run draws on.
      ...(o.clientPool
        ? { clientPool: o.clientPool }
        : { pool: { stderrDir: join(this.store.root, "logs"), ...o.pool } }),
      guard,
      ...(o.executor ? { executor: o.executor } : {}),
    });
  }
}

/** A guard for one environment: the default limit, `callsPerMinute`, or (0) only the emergency stop. */
async function ownGuard(callsPerMinute: number | undefined): Promise<Guard> {
  const { Guard } = await import("@meshflow/mcp");
  if (callsPerMinute === undefined) return new Guard();
  return new Guard(callsPerMinute > 0 ? { callsPerMinute } : { enabled: false });
}
