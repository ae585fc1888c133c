import { existsSync, realpathSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { loadRoutingTable, type McpConfig, MeshflowError, type ModelCatalog, type RoutingTable } from "@meshflow/core";
import type { Guard } from "@meshflow/mcp";
import { createToolPlane, FileRunStore, loadSpecialists, type Specialist, type ToolPlane } from "@meshflow/runtime";

/** Where the gateway's run tools find PRDs, specialists, routing, skills and the run store. */
export interface RunToolsOptions {
  /** The MCP config runs use (the same servers the gateway serves). */
  mcpConfig: McpConfig;
  /** Step → specialist routing merged over the default. */
  routingFile?: string;
  /** Specialist folders (default `./agents`, optional). */
  agents?: readonly string[];
  /** Built-in specialist folders under `./agents` when `agents` is not given (see `loadSpecialists`' `builtin`). */
  builtinAgents?: readonly string[];
  /** The run store's folder (default `FLOW_HOME` or `.flow`). */
  storeDir?: string;
  /** Skills folder (default `./skills` when present). */
  skillsDir?: string;
  /** PRD files must lie inside this folder (default: the working folder). */
  root?: string;
  /**
   * The models of a run, for a `model` given to `flow_run_prd` (or none: the command's `--model`, the
   * PRD's and stories' `model`, `FLOW_MODEL`). Without it, runs have no model.
   */
  models?: (model: string | undefined) => Promise<ModelCatalog>;
}

/**
 * What the run tools share, loaded on first use: the routing table, the specialists, the run store
 * and one tool plane (client pool, chain, resolver) for every run of the gateway. The plane's chain
 * uses the gateway's guard, so an emergency stop reaches runs too and an unlock releases them.
 */
export class RunEnvironment {
  readonly store: FileRunStore;
  readonly root: string;
  readonly agents: string[];
  readonly skillsDir: string | undefined;
  private readonly options: RunToolsOptions;
  private readonly guard: Guard;
  private routingTable: RoutingTable | undefined;
  private loadingSpecialists: Promise<Map<string, { specialist: Specialist; file: string }>> | undefined;
  private loadingPlane: Promise<ToolPlane> | undefined;

  constructor(options: RunToolsOptions, guard: Guard) {
    this.options = options;
    this.guard = guard;
    this.store = new FileRunStore(options.storeDir);
    this.root = realpathSync(resolve(options.root ?? "."));
    this.agents = (options.agents?.length ? options.agents : ["agents"]).map((a) => resolve(a));
    const skills = resolve(options.skillsDir ?? "skills");
    this.skillsDir = options.skillsDir || existsSync(skills) ? skills : undefined;
  }

  /** The models of a run started with `model` (undefined: the server's defaults). */
  async models(model: string | undefined): Promise<ModelCatalog | undefined> {
    return this.options.models ? await this.options.models(model) : undefined;
  }

  get mcpConfig(): McpConfig {
    return this.options.mcpConfig;
  }

  /** The absolute routing file in use, if any. */
  get routingFile(): string | undefined {
    return this.options.routingFile ? resolve(this.options.routingFile) : undefined;
  }

  routing(): RoutingTable {
    this.routingTable ??= loadRoutingTable({ overrideFile: this.options.routingFile });
    return this.routingTable;
  }

  /** Loaded specialists by name, with their files. */
  specialistFiles(): Promise<Map<string, { specialist: Specialist; file: string }>> {
    this.loadingSpecialists ??= loadSpecialists(this.agents, {
      optional: this.options.agents?.length ? [] : this.agents,
      builtin: this.options.agents?.length ? [] : (this.options.builtinAgents ?? []),
    }).catch((error: unknown) => {
      this.loadingSpecialists = undefined;
      throw error;
    });
    return this.loadingSpecialists;
  }

  async specialists(): Promise<Map<string, Specialist>> {
    return new Map([...(await this.specialistFiles())].map(([name, loaded]) => [name, loaded.specialist]));
  }

  /** The shared tool plane of runs. */
  plane(): Promise<ToolPlane> {
    this.loadingPlane ??= createToolPlane({
      mcpConfig: this.options.mcpConfig,
      ...(this.skillsDir ? { skillsDir: this.skillsDir } : {}),
      cacheFile: join(this.store.root, "cache", "classifications.json"),
      pool: { stderrDir: join(this.store.root, "logs") },
      // The gateway's one guard: its rate limit counts the runs' calls, its lock (emergency stop)
      // refuses them, and flow_diagnose / flow_emergency_unlock see and clear that same state.
      guard: this.guard,
    }).catch((error: unknown) => {
      this.loadingPlane = undefined;
      throw error;
    });
    return this.loadingPlane;
  }

  /**
   * A PRD path from a client, resolved against the root; it must exist and lie inside the root
   * (symlinks resolved), since a run writes to it and runs its verify commands.
   */
  prdPath(path: string): string {
    const absolute = resolve(this.root, path);
    if (!existsSync(absolute))
      throw new MeshflowError("file_not_found", `${path}: no such PRD file (relative paths start at ${this.root})`, {
        details: { file: path },
      });
    const real = realpathSync(absolute);
    const inside = relative(this.root, real);
    if (inside.startsWith("..") || isAbsolute(inside))
      throw new MeshflowError("usage", `${path}: PRD files must lie inside ${this.root}`, { details: { file: path } });
    return real;
  }

  async close(): Promise<void> {
    const plane = this.loadingPlane;
    this.loadingPlane = undefined;
    if (plane) await (await plane.catch(() => undefined))?.close();
  }
}
