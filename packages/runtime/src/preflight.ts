import { dirname, resolve } from "node:path";
import {
  didYouMean,
  digestOf,
  formatProblem,
  hasErrors,
  loadPrdFile,
  type McpConfig,
  MeshflowError,
  type ModelCatalog,
  type Prd,
  type Problem,
  planPrd,
  type RoutingTable,
  stepKey,
  type ToolDescriptor,
} from "@meshflow/core";
import type { PlannedStory, RunPlan } from "./RunPlan.js";
import type { DiscoveryFailure, ToolPlane } from "./ToolPlane.js";

/** What the preflight checks a PRD against. */
export interface PreflightInput {
  prdFile: string;
  routing: RoutingTable;
  mcpConfig: McpConfig;
  /** Names of the loaded specialists: every routed step must name one. */
  specialists: ReadonlySet<string>;
  /** Only these story ids (in run order); all when undefined. */
  stories?: readonly string[];
  /** Discover the servers of the stories to run (false for plans that call nothing). */
  discover?: ToolPlane;
  /** The run's models: each story's model is named in the plan. */
  models?: ModelCatalog;
  /** Check the selected stories' models (keys, endpoints) before anything runs. */
  checkModels?: boolean;
}

/** The preflight's result: the plan, the PRD, and the digest resume compares against. */
export interface Preflight {
  plan: RunPlan;
  /** Every tool of the servers the stories use (empty without `discover`). */
  tools: ToolDescriptor[];
  /**
   * Servers the stories use whose tools could not be listed: a problem of the steps that name them
   * (those steps are blocked with the server's error, an environment failure), not of the whole run.
   */
  failures: DiscoveryFailure[];
  prd: Prd;
  prdDigest: string;
  /** Warnings about the selected stories, `<file>: <json-path>: <message>` (the run goes on; they are reported with its result). */
  warnings: string[];
}

/** Digest of a PRD's work: its stories without `passes` and `notes` (the only fields a run writes). */
export function prdWorkDigest(prd: Prd): string {
  return digestOf(prd.userStories.map(({ passes: _p, notes: _n, ...rest }) => rest));
}

/**
 * The preflight of a run (the checks of `flow validate` and `flow plan`): loads and validates the PRD,
 * checks that every step routes to a loaded specialist and every server is configured, and (with
 * `discover`) lists the tools of every server the stories use; a server that cannot be listed is
 * reported in `failures` (its steps are blocked, every other story runs). Throws `prd_invalid` with
 * every problem, `usage` for an unknown `--story`.
 */
export async function preflight(input: PreflightInput): Promise<Preflight> {
  const { prdFile, routing, mcpConfig, specialists } = input;
  const loaded = await loadPrdFile(prdFile, { routing, specialists });
  if (!loaded.prd)
    throw new MeshflowError("prd_invalid", loaded.problems.map(formatProblem).join("\n"), {
      details: { problems: loaded.problems },
    });
  const prd = loaded.prd;
  const plan = planPrd(prd, { file: prdFile, routing, mcpConfig });
  let order = plan.stories;
  if (input.stories) {
    const known = prd.userStories.map((s) => s.id);
    for (const id of input.stories)
      if (!known.includes(id)) throw new MeshflowError("usage", `${prdFile}: no story "${id}"${didYouMean(id, known)}`);
    const wanted = new Set(input.stories);
    order = order.filter((s) => wanted.has(s.id));
  }
  const selected = new Set(order.filter((s) => !s.skipped).map((s) => s.index));
  const ofSelected = (p: Problem) => {
    const at = /^\$\.userStories\[(\d+)\]/.exec(p.path);
    return !at || selected.has(Number(at[1]));
  };
  const problems = plan.problems.filter(ofSelected);
  if (hasErrors(problems))
    throw new MeshflowError("prd_invalid", problems.map(formatProblem).join("\n"), { details: { problems } });

  const stories: PlannedStory[] = order.map((s) => {
    const story = prd.userStories[s.index];
    if (!story) throw new MeshflowError("internal", `story ${s.id} vanished from the plan`);
    const model = input.models?.nameFor(story, prd.model);
    return {
      story,
      index: s.index,
      skipped: s.skipped,
      specialists: s.steps.map((st) => st.specialist ?? ""),
      ...(model ? { model } : {}),
    };
  });
  if (input.models && input.checkModels) {
    const names = stories.filter((s) => !s.skipped && s.model).map((s) => s.model as string);
    if (names.length) await input.models.check(names);
  }

  let tools: ToolDescriptor[] = [];
  let failures: DiscoveryFailure[] = [];
  if (input.discover) {
    const servers = new Set<string>();
    for (const s of stories)
      if (!s.skipped)
        for (const step of s.story.mavenSteps)
          for (const name of s.story.mcpTools[stepKey(step)] ?? []) servers.add(name);
    const discovered = await input.discover.discover([...servers]);
    tools = discovered.tools;
    failures = discovered.failures.map(({ server, code, message }) => ({ server, code, message }));
  }
  const absolute = resolve(prdFile);
  return {
    plan: { prdFile: absolute, prdDir: dirname(absolute), stories },
    tools,
    failures,
    prd,
    prdDigest: prdWorkDigest(prd),
    warnings: loaded.problems.filter(ofSelected).map((p) => `${p.file}: ${p.path}: ${p.message}`),
  };
}

/** What a run brings to its preflight: a part of its dependencies. */
export interface RunPreflightDeps {
  routing: RoutingTable;
  mcpConfig: McpConfig;
  specialists: ReadonlyMap<string, unknown>;
  plane: ToolPlane;
  models?: ModelCatalog;
}

/** The preflight of a run, a resume or a dry run: against its loaded specialists, discovering through its tool plane. */
export function preflightRun(
  deps: RunPreflightDeps,
  prdFile: string,
  stories?: readonly string[],
  checkModels = true,
): Promise<Preflight> {
  return preflight({
    ...(deps.models ? { models: deps.models, checkModels } : {}),
    prdFile,
    routing: deps.routing,
    mcpConfig: deps.mcpConfig,
    specialists: new Set(deps.specialists.keys()),
    stories,
    discover: deps.plane,
  });
}
