import { formatJsonPath } from "../json/jsonPath.js";
import type { McpConfig } from "../mcpConfig/loadMcpConfig.js";
import { stepPurpose } from "../model/stepPurpose.js";
import { type Prd, type Story, stepKey } from "../prd/PrdSchema.js";
import { storiesInRunOrder } from "../prd/runOrder.js";
import type { Problem } from "../problems/Problem.js";
import type { RoutingTable } from "../routing/RoutingTable.js";
import { didYouMean } from "../text/suggest.js";

/** One step of the preflight: what it is for, who runs it, with which MCP servers. */
export interface PlanStep {
  step: number;
  /** What the step is for (`data/step-purposes.yaml`), as a model working it is told. */
  purpose: string;
  /** The specialist the routing table names, or null when the step is unroutable. */
  specialist: string | null;
  servers: string[];
  /** The coding agent that would work the step (`--harness`, the story's or the PRD's `harness`), if any. */
  harness?: string;
}

/** One story of the preflight, in run order. */
export interface PlanStory {
  id: string;
  title: string;
  priority: number;
  /** Position in the PRD file. */
  index: number;
  /** True for stories with `passes: true`: a run skips them. */
  skipped: boolean;
  steps: PlanStep[];
}

/** The preflight routing table of a PRD, before any tool is called. */
export interface Plan {
  stories: PlanStory[];
  problems: Problem[];
}

/** What {@link planPrd} needs besides the PRD. */
export interface PlanContext {
  file: string;
  routing: RoutingTable;
  mcpConfig: McpConfig;
}

function configName(config: McpConfig): string {
  return config.file ?? "no MCP config (looked for --mcp-config, FLOW_MCP_CONFIG, ./.mcp.json)";
}

/**
 * Plans stories one at a time (a PRD of any size): each story's steps, specialists and servers, and
 * the problems found on the way; {@link problems} adds the MCP config's own once every story is seen.
 */
export class StoryPlanner {
  readonly #context: PlanContext;
  readonly #problems: Problem[] = [];
  /** Servers a story that runs names (their config problems are errors, the others' warnings). */
  readonly #referenced = new Set<string>();

  constructor(context: PlanContext) {
    this.#context = context;
  }

  /** The plan of the story at `index` of `userStories`. */
  story(story: Story, index: number): PlanStory {
    const { file, routing, mcpConfig } = this.#context;
    const problems = this.#problems;
    const skipped = story.passes;
    const severity = skipped ? "warning" : "error";
    const steps = story.mavenSteps.map((step, i): PlanStep => {
      const specialist = routing.steps.get(step) ?? null;
      if (specialist === null)
        problems.push({
          file,
          path: formatJsonPath(["userStories", index, "mavenSteps", i]),
          message: `step ${step} routes to no specialist`,
          severity,
        });
      const servers = story.mcpTools[stepKey(step)] ?? [];
      servers.forEach((server, j) => {
        if (!skipped) this.#referenced.add(server);
        const path = () => formatJsonPath(["userStories", index, "mcpTools", stepKey(step), j]);
        const broken = mcpConfig.invalid.get(server);
        if (broken) {
          problems.push({
            file,
            path: path(),
            message: `MCP server "${server}" is misconfigured in ${configName(mcpConfig)}`,
            severity,
          });
        } else if (!mcpConfig.servers.has(server)) {
          const known = [...mcpConfig.servers.keys(), ...mcpConfig.invalid.keys()];
          const hint = didYouMean(server, known);
          const list = known.length ? `; configured: ${known.join(", ")}` : "";
          problems.push({
            file,
            path: path(),
            message: `unknown MCP server "${server}"${hint} in ${configName(mcpConfig)}${list}`,
            severity,
          });
        }
      });
      return { step, purpose: stepPurpose(step), specialist, servers: [...servers] };
    });
    return { id: story.id, title: story.title, priority: story.priority, index, skipped, steps };
  }

  /** The MCP config's problems, then every story's, in the order the stories were planned. */
  problems(): Problem[] {
    const { mcpConfig } = this.#context;
    const configErrors = mcpConfig.problems.map((p) => ({ ...p, severity: "error" as const }));
    const serverProblems = [...mcpConfig.invalid].flatMap(([name, list]) =>
      list.map((p) => ({ ...p, severity: this.#referenced.has(name) ? p.severity : ("warning" as const) })),
    );
    return [...configErrors, ...serverProblems, ...this.#problems];
  }
}

/**
 * Plans a valid PRD: story → step → specialist → MCP servers in run order. Unknown or unusable
 * servers and unroutable steps are problems (warnings only for stories a run would skip).
 */
export function planPrd(prd: Prd, context: PlanContext): Plan {
  const planner = new StoryPlanner(context);
  const stories = storiesInRunOrder(prd).map(({ story, index }) => planner.story(story, index));
  return { stories, problems: planner.problems() };
}
