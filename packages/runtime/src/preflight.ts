import { createHash } from "node:crypto";
import { dirname, resolve } from "node:path";
import {
  canonicalJson,
  didYouMean,
  formatProblem,
  type HarnessChoice,
  hasErrors,
  type McpConfig,
  MeshflowError,
  type ModelCatalog,
  type ModelPrice,
  type Prd,
  type Problem,
  type RoutingTable,
  type Story,
  StoryPlanner,
  scanPrdFile,
  type ToolDescriptor,
} from "@meshflow/core";
import { StoryFile } from "./internal/StoryFile.js";
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
  /**
   * Told of each selected story that has not passed, as it is read (with the routed specialist of each
   * of its steps), so a check of the stories needs no second read of the PRD.
   */
  onStory?: (story: Story, specialists: readonly string[]) => void;
}

/** The preflight's result: the plan and the digest resume compares against. */
export interface Preflight {
  plan: RunPlan;
  /** Every tool of the servers the stories use (empty without `discover`). */
  tools: ToolDescriptor[];
  /**
   * Servers the stories use whose tools could not be listed: a problem of the steps that name them
   * (those steps are blocked with the server's error, an environment failure), not of the whole run.
   */
  failures: DiscoveryFailure[];
  prdDigest: string;
  /** Warnings about the selected stories, `<file>: <json-path>: <message>` (the run goes on; they are reported with its result). */
  warnings: string[];
}

/** Digest of a PRD's work: its stories without `passes` and `notes` (the only fields a run writes). */
export function prdWorkDigest(prd: Prd): string {
  const digest = new WorkDigest();
  for (const story of prd.userStories) digest.add(story);
  return digest.value();
}

/**
 * {@link prdWorkDigest} taken one story at a time: the digest of the array of stories without `passes`
 * and `notes`, fed as the canonical JSON of that array is written.
 */
class WorkDigest {
  readonly #hash = createHash("sha256");
  #count = 0;

  add(story: Story): void {
    const { passes: _p, notes: _n, ...rest } = story;
    this.#hash.update(this.#count++ === 0 ? "[" : ",");
    this.#hash.update(canonicalJson(rest));
  }

  value(): string {
    this.#hash.update(this.#count === 0 ? "[]" : "]");
    return `sha256:${this.#hash.digest("hex")}`;
  }
}

/** The harnesses that would work a step of the stories to run (`--harness`, the stories' and the PRD's). */
function harnessesOf(stories: readonly PlannedStory[], models: ModelCatalog): string[] {
  const names = new Set<string>();
  if (!models.harnessFor) return [];
  for (const planned of stories) {
    if (planned.skipped) continue;
    for (const specialist of new Set(planned.specialists)) {
      const harness = models.harnessFor(planned.harness ?? {}, specialist);
      if (harness) names.add(harness);
    }
  }
  return [...names];
}

/** Distinct step and routing arrays a preflight shares between its stories. */
const SHARED_ARRAYS = 1024;

/** A planned story whose value is read back from the run's story file when asked for. */
class FiledStory implements PlannedStory {
  readonly #file: StoryFile;
  readonly #position: number;
  model?: string;
  harness?: { story?: HarnessChoice; prd?: HarnessChoice };
  prices?: Readonly<Record<string, ModelPrice>>;

  constructor(
    file: StoryFile,
    position: number,
    readonly id: string,
    readonly steps: readonly number[],
    readonly index: number,
    readonly skipped: boolean,
    readonly specialists: string[],
    readonly priority: number,
  ) {
    this.#file = file;
    this.#position = position;
  }

  get story(): Story {
    return this.#file.read(this.#position);
  }
}

/**
 * The preflight of a run (the checks of `flow validate` and `flow plan`): reads and validates the PRD
 * one story at a time (each kept in the plan's story file, not in memory), checks that every step
 * routes to a loaded specialist and every server is configured, and (with `discover`) lists the tools
 * of every server the stories use; a server that cannot be listed is reported in `failures` (its steps
 * are blocked, every other story runs). Throws `prd_invalid` with every problem, `usage` for an
 * unknown `--story`. The caller closes the plan.
 */
async function preflight(input: PreflightInput): Promise<Preflight> {
  const file = new StoryFile();
  try {
    return await preflightInto(file, input);
  } catch (error) {
    file.close();
    throw error;
  }
}

async function preflightInto(file: StoryFile, input: PreflightInput): Promise<Preflight> {
  const { prdFile, routing, mcpConfig, specialists } = input;
  const planner = new StoryPlanner({ file: prdFile, routing, mcpConfig });
  const digest = new WorkDigest();
  const all: FiledStory[] = [];
  const wanted = input.stories ? new Set(input.stories) : undefined;
  const servers = new Set<string>();
  // Most stories of a big PRD have the same steps and routing: they share one array of each.
  const arrays = new Map<string, readonly (string | number)[]>();
  const shared = <T extends string | number>(items: T[]): T[] => {
    const key = items.join("\u0000");
    const known = arrays.get(key) as T[] | undefined;
    if (known && known.length === items.length && known.every((v, i) => v === items[i])) return known;
    if (arrays.size < SHARED_ARRAYS) arrays.set(key, items);
    return items;
  };
  /** Stories with a `model` field of their own (the PRD's `model` is known once the scan ends). */
  const ownModels = new Map<FiledStory, string>();
  /** Stories with a `harness` field of their own. */
  const ownHarnesses = new Map<FiledStory, HarnessChoice>();
  const scan = await scanPrdFile(prdFile, { routing, specialists }, (story, index) => {
    digest.add(story);
    const planned = planner.story(story, index);
    const specialistNames = shared(planned.steps.map((st) => st.specialist ?? ""));
    const position = file.append(story);
    const filed = new FiledStory(
      file,
      position,
      story.id,
      shared(story.mavenSteps),
      index,
      planned.skipped,
      specialistNames,
      story.priority,
    );
    if (story.model) ownModels.set(filed, story.model);
    if (story.harness) ownHarnesses.set(filed, story.harness);
    all.push(filed);
    if (!planned.skipped && (!wanted || wanted.has(story.id))) {
      for (const step of planned.steps) for (const name of step.servers) servers.add(name);
      input.onStory?.(story, specialistNames);
    }
  });
  if (hasErrors(scan.problems))
    throw new MeshflowError("prd_invalid", scan.problems.map(formatProblem).join("\n"), {
      details: { problems: scan.problems },
    });
  const prdHarness = scan.head?.harness;
  const prices = scan.head?.prices;
  if (input.models)
    for (const filed of all) {
      const model = input.models.nameFor({ id: filed.id, model: ownModels.get(filed) }, scan.head?.model);
      if (model) filed.model = model;
      if (prices && Object.keys(prices).length) filed.prices = prices;
      const own = ownHarnesses.get(filed);
      if (own || prdHarness)
        filed.harness = { ...(own ? { story: own } : {}), ...(prdHarness ? { prd: prdHarness } : {}) };
    }
  // Run order: ascending priority, ties in file order.
  const inOrder = [...all].sort((a, b) => a.priority - b.priority || a.index - b.index);
  let order: PlannedStory[] = inOrder;
  if (input.stories) {
    const known = all.map((s) => s.id);
    const ids = new Set(known);
    for (const id of input.stories)
      if (!ids.has(id)) throw new MeshflowError("usage", `${prdFile}: no story "${id}"${didYouMean(id, known)}`);
    order = inOrder.filter((s) => wanted?.has(s.id));
  }
  const selected = new Set(order.filter((s) => !s.skipped).map((s) => s.index));
  const ofSelected = (p: Problem) => {
    const at = /^\$\.userStories\[(\d+)\]/.exec(p.path);
    return !at || selected.has(Number(at[1]));
  };
  const problems = planner.problems().filter(ofSelected);
  if (hasErrors(problems))
    throw new MeshflowError("prd_invalid", problems.map(formatProblem).join("\n"), { details: { problems } });

  if (input.models && input.checkModels) {
    const names = order.filter((s) => !s.skipped && s.model).map((s) => s.model as string);
    const harnesses = harnessesOf(order, input.models);
    if (names.length || harnesses.length) await input.models.check(names, harnesses);
  }

  let tools: ToolDescriptor[] = [];
  let failures: DiscoveryFailure[] = [];
  if (input.discover) {
    const discovered = await input.discover.discover([...servers]);
    tools = discovered.tools;
    failures = discovered.failures.map(({ server, code, message }) => ({ server, code, message }));
  }
  const absolute = resolve(prdFile);
  return {
    plan: {
      prdFile: absolute,
      prdDir: dirname(absolute),
      stories: order,
      ...(scan.source ? { source: scan.source } : {}),
      close: () => file.close(),
    },
    tools,
    failures,
    prdDigest: digest.value(),
    warnings: scan.problems.filter(ofSelected).map((p) => `${p.file}: ${p.path}: ${p.message}`),
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
  onStory?: PreflightInput["onStory"],
): Promise<Preflight> {
  return preflight({
    ...(onStory ? { onStory } : {}),
    ...(deps.models ? { models: deps.models, checkModels } : {}),
    prdFile,
    routing: deps.routing,
    mcpConfig: deps.mcpConfig,
    specialists: new Set(deps.specialists.keys()),
    stories,
    discover: deps.plane,
  });
}
