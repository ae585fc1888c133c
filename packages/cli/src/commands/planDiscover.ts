import { formatJsonPath, type McpConfig, type Plan, type Problem, stepKey } from "@meshflow/core";
import type { ServerFailure } from "@meshflow/mcp";
import { createPool, withPool } from "../mcpSetup.js";

/** What a step's MCP servers offer: the tools its specialist would get before skills and enrichers. */
export interface StepTools {
  count: number;
  names: string[];
  /** Bytes of the tool definitions a model would be sent (name, description, input schema). */
  schemaBytes: number;
}

/** The discovery part of `flow plan --discover`. */
export interface PlanDiscovery {
  /** By `<storyId>/<step>`; steps of skipped stories are not discovered. */
  steps: Map<string, StepTools>;
  failures: ServerFailure[];
  problems: Problem[];
}

/** The key of a step in {@link PlanDiscovery.steps}. */
export const stepId = (storyId: string, step: number) => `${storyId}/${step}`;

/**
 * Discovers the tools of every configured server a non-skipped step names (each server once) and
 * sums them up per step. A server that fails is a problem at each step that needs it.
 */
export async function discoverPlanTools(file: string, plan: Plan, mcpConfig: McpConfig): Promise<PlanDiscovery> {
  const wanted = new Set<string>();
  for (const story of plan.stories)
    if (!story.skipped)
      for (const step of story.steps)
        for (const server of step.servers) if (mcpConfig.servers.has(server)) wanted.add(server);
  const { toolSchemaBytes } = await import("@meshflow/mcp");
  const pool = await createPool(mcpConfig);
  const { tools, failures } = await withPool(pool, (p) => p.discover([...wanted]));
  const failed = new Map(failures.map((f) => [f.server, f]));
  const steps = new Map<string, StepTools>();
  const problems: Problem[] = [];
  for (const story of plan.stories) {
    if (story.skipped) continue;
    for (const step of story.steps) {
      const own = tools.filter((t) => step.servers.includes(t.server));
      steps.set(stepId(story.id, step.step), {
        count: own.length,
        names: own.map((t) => t.qualifiedName),
        schemaBytes: toolSchemaBytes(own),
      });
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
  }
  return { steps, failures, problems };
}
