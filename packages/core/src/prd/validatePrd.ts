import { isAbsolute, resolve } from "node:path";
import { isInside } from "../fs/projectRoot.js";
import { checkJsonLimits, MAX_PRD_DEPTH } from "../json/checkJsonLimits.js";
import { formatJsonPath } from "../json/jsonPath.js";
import { hasErrors, type Problem } from "../problems/Problem.js";
import type { RoutingTable } from "../routing/RoutingTable.js";
import { didYouMean } from "../text/suggest.js";
import { type Prd, PrdSchema, parseStepKey, type Story, StorySchema } from "./PrdSchema.js";
import { plainErrorMap, zodProblems } from "./zodProblems.js";

/** What the validator checks a PRD against besides its schema. */
export interface PrdValidationContext {
  /** The file name used in problem messages. */
  file: string;
  /** Step → specialist routing; every step of every story must route somewhere. */
  routing: RoutingTable;
  /** When given, every routed specialist must be one of these. */
  specialists?: ReadonlySet<string> | undefined;
  /**
   * The PRD's folder and its project ({@link projectRoot}), when the PRD is a file on disk: a `verify`
   * cwd (relative to the PRD's folder) must stay inside the project. Without them only an absolute cwd
   * is refused here; the gate checks the folder itself before it runs a command.
   */
  location?: { prdDir: string; projectDir: string } | undefined;
}

/** Result of validating a PRD: the typed PRD when the schema held, and every problem found. */
export interface PrdValidation {
  prd: Prd | undefined;
  problems: Problem[];
}

function checkStepKeys(
  file: string,
  story: Story,
  index: number,
  field: "mcpTools" | "calls",
  keys: readonly string[],
): Problem[] {
  const problems: Problem[] = [];
  // Paths are made only for a problem: a valid PRD of thousands of stories makes none.
  const at = (key: string) => formatJsonPath(["userStories", index, field, key]);
  for (const key of keys) {
    const step = parseStepKey(key);
    if (step === undefined) {
      problems.push({
        file,
        path: at(key),
        message: `key must be "step<N>" (e.g. "step1"), found "${key}"`,
        severity: "error",
      });
    } else if (!story.mavenSteps.includes(step)) {
      problems.push({
        file,
        path: at(key),
        message: `step ${step} is not in mavenSteps [${story.mavenSteps.join(",")}]`,
        severity: "error",
      });
    }
  }
  return problems;
}

/**
 * A PRD value nested deeper than {@link MAX_PRD_DEPTH} (counted from the PRD's root, `depthAbove`
 * levels above `value`), as an error at its JSON path. Checked before the schema or anything else
 * walks the value: the run's digests and copies recurse, and a story thousands deep overflowed the stack.
 */
function depthProblem(value: unknown, file: string, prefix: readonly PropertyKey[]): Problem | undefined {
  const found = checkJsonLimits(value, {
    maxDepth: MAX_PRD_DEPTH - prefix.length,
    maxBytes: Number.POSITIVE_INFINITY,
    prefix,
    limitOf: "a PRD",
  });
  if (!found) return undefined;
  const message = found.message.replace(/\d+ levels/, `${MAX_PRD_DEPTH} levels`);
  return { file, path: found.path, message, severity: "error" };
}

/** Scripted `args` nested too deep or too large: refused here, before a run would choke on them. */
function argumentLimits(story: Story, index: number, file: string): Problem[] {
  const problems: Problem[] = [];
  for (const [key, calls] of Object.entries(story.calls ?? {}))
    calls.forEach((call, i) => {
      const found = checkJsonLimits(call.args, { prefix: ["userStories", index, "calls", key, i, "args"] });
      if (found) problems.push({ file, path: found.path, message: found.message, severity: "error" });
    });
  return problems;
}

function checkStory(story: Story, index: number, context: PrdValidationContext): Problem[] {
  const { file, routing, specialists } = context;
  const problems: Problem[] = [];
  const seen = new Map<number, number>();
  story.mavenSteps.forEach((step, i) => {
    const path = () => formatJsonPath(["userStories", index, "mavenSteps", i]);
    const first = seen.get(step);
    if (first !== undefined) {
      problems.push({
        file,
        path: path(),
        message: `step ${step} is listed twice (first at index ${first})`,
        severity: "error",
      });
      return;
    }
    seen.set(step, i);
    const specialist = routing.steps.get(step);
    if (specialist === undefined) {
      problems.push({
        file,
        path: path(),
        message: `step ${step} routes to no specialist (routing: ${routing.sources.join(" + ")})`,
        severity: "error",
      });
    } else if (specialists && !specialists.has(specialist)) {
      const known = [...specialists].sort().join(", ") || "none";
      problems.push({
        file,
        path: path(),
        message: `step ${step} routes to "${specialist}", which is not a known specialist (known: ${known})`,
        severity: "error",
      });
    }
  });
  problems.push(...checkStepKeys(file, story, index, "mcpTools", Object.keys(story.mcpTools)));
  if (story.calls) problems.push(...checkStepKeys(file, story, index, "calls", Object.keys(story.calls)));
  if (story.agentConfig) problems.push(...checkAgentConfig(file, story, index, context));
  const { location } = context;
  story.verify?.forEach((command, i) => {
    if (command.cwd === undefined) return;
    const outside = isAbsolute(command.cwd)
      ? "an absolute path"
      : location && !isInside(location.projectDir, resolve(location.prdDir, command.cwd))
        ? `outside the project ${location.projectDir}`
        : undefined;
    if (outside)
      problems.push({
        file,
        path: formatJsonPath(["userStories", index, "verify", i, "cwd"]),
        message: `cwd must be a path relative to the PRD's folder that stays inside the project (its git repository, else the folder holding .mcp.json), found "${command.cwd}": ${outside}`,
        severity: "error",
      });
  });
  return problems;
}

/**
 * Every `agentConfig` key must name a known specialist (when the specialists are known), and one
 * that no step of the story routes to is a warning: its settings would silently have no effect.
 */
function checkAgentConfig(file: string, story: Story, index: number, context: PrdValidationContext): Problem[] {
  const { routing, specialists } = context;
  const problems: Problem[] = [];
  const routed = new Map<string, number[]>();
  for (const step of story.mavenSteps) {
    const name = routing.steps.get(step);
    if (name) routed.set(name, [...(routed.get(name) ?? []), step]);
  }
  for (const name of Object.keys(story.agentConfig ?? {})) {
    const path = formatJsonPath(["userStories", index, "agentConfig", name]);
    if (specialists && !specialists.has(name)) {
      problems.push({
        file,
        path,
        message: `"${name}" is not a known specialist${didYouMean(name, specialists)} (known: ${[...specialists].sort().join(", ") || "none"})`,
        severity: "error",
      });
    } else if (!routed.has(name)) {
      const steps = [...routed].map(([to, at]) => `${at.join(", ")} → ${to}`).join("; ") || "none";
      problems.push({
        file,
        path,
        message: `no step of this story routes to "${name}"${didYouMean(name, routed.keys())}, so these settings have no effect (steps: ${steps})`,
        severity: "warning",
      });
    }
  }
  return problems;
}

/**
 * Checks the stories of one PRD one at a time (so a PRD of any size needs memory for one story): the
 * story schema, unique ids, `step<N>` keys, routing, argument limits. Problems collect in `problems`.
 */
export class StoryChecker {
  readonly problems: Problem[] = [];
  readonly #context: PrdValidationContext;
  readonly #firstIdAt = new Map<string, number>();
  /** Where each valid story runs (priority, then file position) by id: for the `dependsOn` checks. */
  readonly #runsAt = new Map<string, { priority: number; index: number }>();
  /** The stories with a `dependsOn`, checked once every story is known ({@link finish}). */
  readonly #dependents: Array<{ index: number; priority: number; id: string; dependsOn: string[] }> = [];

  constructor(context: PrdValidationContext) {
    this.#context = context;
  }

  /** The story at `index` of `userStories`, typed, or undefined when its schema does not hold. */
  check(raw: unknown, index: number): Story | undefined {
    const { file } = this.#context;
    const id = typeof raw === "object" && raw !== null ? (raw as { id?: unknown }).id : undefined;
    if (typeof id === "string") {
      const first = this.#firstIdAt.get(id);
      if (first === undefined) this.#firstIdAt.set(id, index);
      else
        this.problems.push({
          file,
          path: formatJsonPath(["userStories", index, "id"]),
          message: `duplicate story id "${id}" (also at ${formatJsonPath(["userStories", first, "id"])})`,
          severity: "error",
        });
    }
    const tooDeep = depthProblem(raw, file, ["userStories", index]);
    if (tooDeep) {
      this.problems.push(tooDeep);
      return undefined;
    }
    const story = StorySchema.safeParse(raw, { error: plainErrorMap });
    if (!story.success) {
      this.problems.push(...zodProblems(file, story.error.issues, ["userStories", index]));
      return undefined;
    }
    this.problems.push(...checkStory(story.data, index, this.#context), ...argumentLimits(story.data, index, file));
    const { priority, dependsOn } = story.data;
    if (!this.#runsAt.has(story.data.id)) this.#runsAt.set(story.data.id, { priority, index });
    if (dependsOn?.length) this.#dependents.push({ index, priority, id: story.data.id, dependsOn });
    return story.data;
  }

  /**
   * Checks what needs every story (each `dependsOn` names a story of this PRD that runs before it) and
   * returns all the problems found.
   */
  finish(): Problem[] {
    const { file } = this.#context;
    const known = [...this.#runsAt.keys()];
    for (const story of this.#dependents)
      story.dependsOn.forEach((dep, j) => {
        const path = formatJsonPath(["userStories", story.index, "dependsOn", j]);
        const at = this.#runsAt.get(dep);
        let message: string | undefined;
        if (dep === story.id) message = `${story.id} cannot depend on itself`;
        else if (!at) message = `no story "${dep}" in this PRD${didYouMean(dep, known)}`;
        else if (at.priority > story.priority || (at.priority === story.priority && at.index > story.index))
          message = `"${dep}" runs after ${story.id} (priority ${at.priority}, then file order; ${story.id} has ${story.priority}): give "${dep}" a lower priority number or put it first`;
        if (message) this.problems.push({ file, path, message, severity: "error" });
      });
    this.#dependents.length = 0;
    return this.problems;
  }
}

/** The PRD's own fields (everything but its stories). */
export type PrdHead = { [K in keyof Prd as K extends "userStories" ? never : K]: Prd[K] };

/**
 * Checks a PRD's own fields: `data` with its `userStories` emptied when it is an array (each story is
 * checked by a {@link StoryChecker}), as is otherwise (a missing or mistyped `userStories` is reported).
 */
export function validatePrdHead(data: unknown, file: string): { head: PrdHead | undefined; problems: Problem[] } {
  const stories = typeof data === "object" && data !== null && Array.isArray((data as Prd).userStories);
  const own = stories ? { ...(data as object), userStories: [] } : data;
  const tooDeep = depthProblem(own, file, []);
  if (tooDeep) return { head: undefined, problems: [tooDeep] };
  const parsed = PrdSchema.safeParse(own, { error: plainErrorMap });
  if (!parsed.success) return { head: undefined, problems: zodProblems(file, parsed.error.issues) };
  const { userStories: _none, ...head } = parsed.data;
  return { head, problems: [] };
}

/**
 * Validates parsed PRD data: the zod schema, then unique story ids, `step<N>` keys that name steps of
 * the story, and a specialist for every step. Every problem is reported, not just the first.
 */
export function validatePrd(data: unknown, context: PrdValidationContext): PrdValidation {
  const { head, problems } = validatePrdHead(data, context.file);
  // Story-level checks run on every story, so one broken story does not hide the problems of the others.
  const rawStories =
    typeof data === "object" && data !== null && Array.isArray((data as { userStories?: unknown }).userStories)
      ? ((data as { userStories: unknown[] }).userStories as unknown[])
      : [];
  const checker = new StoryChecker(context);
  const stories: Story[] = [];
  rawStories.forEach((raw, index) => {
    const story = checker.check(raw, index);
    if (story) stories.push(story);
  });
  problems.push(...checker.finish());
  const valid = stories.length === rawStories.length && !hasErrors(problems);
  return { prd: head && valid ? { ...head, userStories: stories } : undefined, problems: sortProblems(problems) };
}

/** Orders problems by their position in the file (path order), keeping equal paths stable. */
export function sortProblems(problems: Problem[]): Problem[] {
  const key = (path: string) => path.replace(/\[(\d+)\]/g, (_, n: string) => `[${n.padStart(8, "0")}]`);
  return problems
    .map((p, i) => ({ p, i, k: key(p.path) }))
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : a.i - b.i))
    .map(({ p }) => p);
}
