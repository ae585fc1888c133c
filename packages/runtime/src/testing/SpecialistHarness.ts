import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import {
  type McpServerConfig,
  MeshflowError,
  type RunEvent,
  type StepStatus,
  type Story,
  StorySchema,
  stepKey,
  type ToolDescriptor,
} from "@meshflow/core";
import { inMemoryServers } from "@meshflow/mcp";
import type { ToolEnricher } from "@meshflow/resolver";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { z } from "zod";
import type { CallEvidence } from "../CallEvidence.js";
import type { ConfirmDestructive } from "../ConfirmDestructive.js";
import { createToolPlane } from "../createToolPlane.js";
import { StepRunner } from "../internal/StepRunner.js";
import type { Specialist, StepMemory } from "../specialists/defineSpecialist.js";
import type { ToolPlane } from "../ToolPlane.js";
import { type Recall, runMemory } from "../workflow/RunMemory.js";
import { MemoryCallJournal } from "./MemoryCallJournal.js";

/**
 * A server a test runs a specialist against: a factory of an in-process MCP server (connected over an
 * `InMemoryTransport` pair), or a real server config (stdio or Streamable HTTP).
 */
export type TestServer = (() => McpServer | Server) | McpServerConfig;

/** How a {@link SpecialistHarness} is set up. */
export interface SpecialistHarnessOptions {
  /** The servers by name; the names are what stories put in `mcpTools`. */
  servers: Readonly<Record<string, TestServer>>;
  /**
   * The skills folder (capability catalog, skills, alias maps), as `flow run --skills`. Default:
   * `FLOW_SKILLS`, else the nearest `skills/` holding a `capabilities.yaml` at or above the working
   * directory, else the built-in skills of the project's installed `@meshflow/cli`. `false`: none (no capabilities, every step tool in the repertoire).
   */
  skillsDir?: string | false;
  enrichers?: readonly ToolEnricher[];
  /** Asked before destructive calls, as `flow run --confirm-destructive` asks. */
  confirmDestructive?: ConfirmDestructive;
  /** Time limit of one tool call (default: the pool's, 60 s). */
  callTimeoutMs?: number;
}

/** The story step a specialist is run on. Everything left out gets a default. */
export interface StepInput {
  /** Story fields; default id `US-TEST`, priority 1, `mavenSteps: [step]`, `mcpTools` of the step: `servers`. */
  story?: Partial<z.input<typeof StorySchema>>;
  /** The step (default: the story's first step, else the specialist's first step, else 1). */
  step?: number;
  /** The step's servers when the story does not name them (default: every server of the harness). */
  stepServers?: readonly string[];
  /** Outcomes of the story's earlier steps (`ctx.memory`). */
  memory?: readonly StepMemory[];
  /** What the run remembers of other stories (`ctx.memory.stories`, `ctx.memory.learnings`); default none. */
  recall?: Recall;
  signal?: AbortSignal;
}

/** What one step did, as a test asserts on it. */
export interface StepRun {
  status: StepStatus;
  summary: string;
  evidence: unknown[];
  /** Every call think() made (refusals included), as the run's evidence records them. */
  calls: CallEvidence[];
  /** The `tool.called` / `tool.result` / `tool.refused` events of the step. */
  events: RunEvent[];
  /** What the specialist wrote with `ctx.log`. */
  logs: Record<string, unknown>[];
  /** The step's repertoire. */
  repertoire: ToolDescriptor[];
  story: Story;
  step: number;
}

/** Runs specialists' think() on story steps against real MCP servers, as a run would. */
export interface SpecialistHarness {
  /** Every tool the servers listed. */
  readonly tools: readonly ToolDescriptor[];
  run(specialist: Specialist, input?: StepInput): Promise<StepRun>;
  /** Closes the servers' clients (and stops stdio servers). */
  close(): Promise<void>;
}

/**
 * `FLOW_SKILLS`, else the nearest `skills/capabilities.yaml` at or above `from`, else the built-in
 * skills of the `@meshflow/cli` installed in the project (read as data; the runtime never imports the CLI).
 */
function defaultSkillsDir(from: string): string | undefined {
  if (process.env.FLOW_SKILLS) return resolve(process.env.FLOW_SKILLS);
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "skills", "capabilities.yaml"))) return join(dir, "skills");
    if (dirname(dir) === dir) break;
  }
  try {
    const cli = createRequire(join(resolve(from), "package.json")).resolve("@meshflow/cli/package.json");
    const builtin = join(dirname(cli), "builtin", "skills");
    return existsSync(join(builtin, "capabilities.yaml")) ? builtin : undefined;
  } catch {
    return undefined;
  }
}

let runs = 0;

/**
 * Starts the servers, discovers their tools (a server that fails throws `server_unreachable`) and
 * returns a harness that runs one step at a time: routing aside, exactly what `flow run` does for a
 * step — repertoire from skills and enrichers, settings from `config` and the story's `agentConfig`,
 * calls through resolver, journal, middleware chain and the real servers.
 *
 * @example
 * const harness = await createSpecialistHarness({ servers: { notes: () => makeNotesServer() } });
 * const run = await harness.run(mySpecialist, { story: { agentConfig: { "my-agent": { files: ["a.md"] } } } });
 * expect(run.status).toBe("passed");
 * await harness.close();
 */
export async function createSpecialistHarness(options: SpecialistHarnessOptions): Promise<SpecialistHarness> {
  const factories: Record<string, () => McpServer | Server> = {};
  const configs = new Map<string, McpServerConfig>();
  for (const [name, server] of Object.entries(options.servers)) {
    if (typeof server === "function") factories[name] = server;
    else configs.set(name, { ...server, name });
  }
  const memory = inMemoryServers(factories);
  const servers = new Map<string, McpServerConfig>();
  for (const name of Object.keys(options.servers)) {
    const config = configs.get(name) ?? memory.servers.get(name);
    if (config) servers.set(name, config);
  }
  const skillsDir = options.skillsDir === false ? undefined : (options.skillsDir ?? defaultSkillsDir(process.cwd()));
  // The classification cache of a test lives and dies with the harness.
  const scratch = mkdtempSync(join(tmpdir(), "meshflow-harness-"));
  let plane: ToolPlane | undefined;
  try {
    plane = await createToolPlane({
      mcpConfig: { file: undefined, source: "none", servers, invalid: new Map(), problems: [] },
      ...(skillsDir ? { skillsDir } : {}),
      cacheFile: join(scratch, "classifications.json"),
      ...(options.enrichers ? { enrichers: options.enrichers } : {}),
      pool: {
        transportFactory: memory.transportFactory,
        ...(options.callTimeoutMs ? { callTimeoutMs: options.callTimeoutMs } : {}),
      },
    });
    const { tools, failures } = await plane.discover([...servers.keys()]);
    if (failures.length)
      throw new MeshflowError(
        "server_unreachable",
        `test servers failed: ${failures.map((f) => `${f.server}: ${f.code}: ${f.message}`).join("; ")}`,
        { details: { failures } },
      );
    const ready = plane;
    return {
      tools,
      run: (specialist, input = {}) => runStep(ready, tools, specialist, input, options),
      async close() {
        await ready.close();
        rmSync(scratch, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await plane?.close();
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
}

function buildStory(specialist: Specialist, input: StepInput, serverNames: readonly string[]) {
  const given = input.story ?? {};
  const step = input.step ?? given.mavenSteps?.[0] ?? specialist.steps?.[0] ?? 1;
  const mavenSteps = given.mavenSteps ?? [step];
  if (!mavenSteps.includes(step))
    throw new MeshflowError("usage", `step ${step} is not in the test story's mavenSteps [${mavenSteps.join(", ")}]`);
  const key = stepKey(step);
  const mcpTools = { ...given.mcpTools };
  mcpTools[key] ??= [...(input.stepServers ?? serverNames)];
  const parsed = StorySchema.safeParse({
    id: "US-TEST",
    title: `${specialist.name} test story`,
    priority: 1,
    ...given,
    mavenSteps,
    mcpTools,
  });
  if (!parsed.success)
    throw new MeshflowError(
      "prd_invalid",
      `invalid test story: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  return { story: parsed.data, step, index: mavenSteps.indexOf(step) };
}

async function runStep(
  plane: ToolPlane,
  tools: readonly ToolDescriptor[],
  specialist: Specialist,
  input: StepInput,
  options: SpecialistHarnessOptions,
): Promise<StepRun> {
  const { story, step, index } = buildStory(specialist, input, Object.keys(options.servers));
  const events: RunEvent[] = [];
  const logs: Record<string, unknown>[] = [];
  runs += 1;
  const runner = new StepRunner({
    runId: `test-${process.pid}-${runs}`,
    plane,
    specialists: new Map([[specialist.name, specialist]]),
    journal: new MemoryCallJournal(),
    emit: (event) => events.push(event),
    log: (entry) => logs.push(entry),
    signal: input.signal ?? new AbortController().signal,
    ...(options.confirmDestructive ? { confirmDestructive: options.confirmDestructive } : {}),
  });
  runner.setTools(tools);
  const planned = {
    story,
    id: story.id,
    steps: story.mavenSteps,
    index: 0,
    skipped: false,
    specialists: story.mavenSteps.map(() => specialist.name),
  };
  const repertoire = [...runner.prepare(planned, index).repertoire];
  const result = await runner.think(planned, index, runMemory(input.memory ?? [], input.recall));
  return {
    status: result.status,
    summary: result.summary,
    evidence: result.evidence,
    calls: result.calls,
    events,
    logs,
    repertoire,
    story,
    step,
  };
}

/**
 * Runs one specialist's think() on one story step against the given servers, then closes them.
 *
 * @example
 * const run = await runSpecialist(qualityAgent, {
 *   servers: { workspace: () => createWorkspaceServer({ root, allow: ["node"] }) },
 *   story: { mavenSteps: [5], verify: [{ run: ["node", "--test"] }] },
 * });
 * expect(run.status).toBe("passed");
 */
export async function runSpecialist(
  specialist: Specialist,
  input: StepInput & SpecialistHarnessOptions,
): Promise<StepRun> {
  const harness = await createSpecialistHarness(input);
  try {
    return await harness.run(specialist, input);
  } finally {
    await harness.close();
  }
}
