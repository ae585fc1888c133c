import { formatJsonPath, type McpConfig, type Plan, type Problem, stepKey, type ToolDescriptor } from "@meshflow/core";
import type { ServerFailure } from "@meshflow/mcp";
import { createPool, withPool } from "../mcpSetup.js";

/**
 * A step's repertoire: the tools its specialist really gets (its servers' tools after the skills and
 * enrichers), as `flow run --dry-run` computes it.
 */
export interface StepTools {
  /** The specialist whose repertoire this is. */
  specialist: string;
  count: number;
  names: string[];
  /** Bytes of the repertoire's tool definitions a model would be sent (name, description, input schema). */
  schemaBytes: number;
  /** How many tools the step's servers offer. */
  offered: number;
  /** The servers' tools the skills and enrichers left out of the repertoire. */
  leftOut: string[];
}

/** The discovery part of `flow plan --discover`. */
export interface PlanDiscovery {
  /** By `<storyId>/<step>`; steps of skipped stories are not discovered. */
  steps: Map<string, StepTools>;
  failures: ServerFailure[];
  problems: Problem[];
  /** Every discovered tool, and its capability ids (for which calls need approval). */
  tools: { descriptors: Map<string, ToolDescriptor>; capabilities: Map<string, readonly string[]> };
}

/** The key of a step in {@link PlanDiscovery.steps}. */
export const stepId = (storyId: string, step: number) => `${storyId}/${step}`;

/** Where `flow plan --discover` finds the specialists and skills (as `flow run` would). */
export interface DiscoverOptions {
  agents?: string[] | string;
  skills?: string;
}

/**
 * Discovers the tools of every configured server a non-skipped step names (each server once) and
 * gives per step its specialist's repertoire (skills and enrichers applied, as a run does). A server
 * that fails is a problem at each step that needs it.
 */
export async function discoverPlanTools(
  file: string,
  plan: Plan,
  mcpConfig: McpConfig,
  options: DiscoverOptions = {},
): Promise<PlanDiscovery> {
  const wanted = new Set<string>();
  for (const story of plan.stories)
    if (!story.skipped)
      for (const step of story.steps)
        for (const server of step.servers) if (mcpConfig.servers.has(server)) wanted.add(server);
  const [{ toolSchemaBytes }, { createToolPlane, loadSpecialists, specialistInfo }, { agentPaths, resolveSkillsDir }] =
    await Promise.all([import("@meshflow/mcp"), import("@meshflow/runtime/host"), import("./runEnvironment.js")]);
  const agents = agentPaths(options.agents);
  const specialists = await loadSpecialists(agents.paths, agents);
  const skillsDir = resolveSkillsDir(options.skills);
  const steps = new Map<string, StepTools>();
  const tools = { descriptors: new Map<string, ToolDescriptor>(), capabilities: new Map<string, readonly string[]>() };
  const pool = await createPool(mcpConfig);
  const failures = await withPool(pool, async (p) => {
    const found = await p.discover([...wanted]);
    // The plane classifies the tools for the skills; the pool's listings are cached, nothing is asked twice.
    const plane = await createToolPlane({ mcpConfig, clientPool: p, ...(skillsDir ? { skillsDir } : {}) });
    try {
      await plane.discover([...new Set(found.tools.map((t) => t.server))]);
      for (const t of found.tools) {
        tools.descriptors.set(t.qualifiedName, t);
        tools.capabilities.set(t.qualifiedName, plane.capabilities?.(t.qualifiedName) ?? []);
      }
      for (const story of plan.stories) {
        if (story.skipped) continue;
        for (const step of story.steps) {
          const own = found.tools.filter((t) => step.servers.includes(t.server));
          const name = step.specialist ?? "";
          const specialist = specialists.get(name)?.specialist;
          const repertoire = specialist ? plane.repertoire(own, specialistInfo(specialist)) : [];
          const kept = new Set(repertoire.map((t) => t.qualifiedName));
          steps.set(stepId(story.id, step.step), {
            specialist: name,
            count: repertoire.length,
            names: repertoire.map((t) => t.qualifiedName),
            schemaBytes: toolSchemaBytes(repertoire),
            offered: own.length,
            leftOut: own.filter((t) => !kept.has(t.qualifiedName)).map((t) => t.qualifiedName),
          });
        }
      }
    } finally {
      await plane.close();
    }
    return found.failures;
  });
  const failed = new Map(failures.map((f) => [f.server, f]));
  const problems: Problem[] = [];
  for (const story of plan.stories) {
    if (story.skipped) continue;
    for (const step of story.steps)
      step.servers.forEach((server, j) => {
        const failure = failed.get(server);
        if (failure)
          problems.push({
            file,
            path: formatJsonPath(["userStories", story.index, "mcpTools", stepKey(step.step), j]),
            message: `MCP server "${server}" failed (${failure.code}): ${failure.message.split("\n")[0]}`,
            severity: "error",
          });
      });
  }
  return { steps, failures, problems, tools };
}
