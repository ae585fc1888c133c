import {
  type ErrorCode,
  type ModelRequestSize,
  parseQualifiedName,
  stepKey,
  stepPurpose,
  toMeshflowError,
} from "@meshflow/core";
import { modelTask } from "./internal/stepModel.js";

/** The tools a model or harness finishes a step with, offered beside the repertoire. */
const FINISHING_TOOL_NAMES = ["step_pass", "step_fail", "step_block"] as const;

import { VerifyGroups } from "./allowlists/VerifyGroups.js";
import { preflightRun } from "./preflight.js";
import type { RunDependencies } from "./runSession.js";
import { specialistInfo } from "./specialists/defineSpecialist.js";
import type { DiscoveryFailure } from "./ToolPlane.js";

/** What one scripted call would do. */
export interface DryRunCall {
  name: string;
  /** The tool it resolves to, when it resolves. */
  tool?: string;
  tier?: string;
  warnings?: string[];
  /** Why it would be refused. */
  refused?: { code: ErrorCode; message: string };
}

/** What one step would do. */
export interface DryRunStep {
  step: number;
  specialist: string;
  servers: string[];
  /** Size of the repertoire. */
  tools: number;
  /**
   * `code`: the specialist's own think(); `scripted`: the story's calls; `model`: the model (after the
   * calls, if any); `blocked`: none of them.
   */
  plan: "code" | "scripted" | "model" | "blocked";
  calls: DryRunCall[];
  /** Why the step would be blocked before its specialist thinks (a server that could not be listed). */
  blocked?: string;
  /** The step's model and the size of its first request (later turns add the conversation). */
  model?: ModelRequestSize & { name: string };
  /** The coding agent that would work the step, and the tools its step server would offer it. */
  harness?: { name: string; tools: string[] };
}

/** The dry run of a PRD: every story step and scripted call, resolved, nothing called. */
export interface DryRun {
  stories: Array<{ id: string; skipped: boolean; steps: DryRunStep[] }>;
  /** Scripted calls that would be refused. */
  refusals: number;
  /** Servers of the selected stories that could not be listed: their steps would be blocked, the others run. */
  failures: DiscoveryFailure[];
  /**
   * Warnings about the selected stories (`<file>: <json-path>: <message>`), and the verify commands their
   * steps' tools would refuse (`<story ids>: verify "…" would be refused by …`), as a run reports them.
   */
  warnings: string[];
}

/**
 * `flow run --dry-run`: the preflight, then every scripted call resolved against its step's
 * discovered repertoire (resolver tiers, repertoire policy). No tool is called, no run is recorded.
 */
export async function dryRun(
  deps: Omit<RunDependencies, "store" | "onEvent">,
  options: { prdFile: string; stories?: string[] },
): Promise<DryRun> {
  // Nothing is called in a dry run, not even a model endpoint: keys and endpoints are checked by the run.
  const verifies = new VerifyGroups(deps.specialists);
  const checked = await preflightRun(deps, options.prdFile, options.stories, false, (story, names) =>
    verifies.add(story, names),
  );
  try {
    let refusals = 0;
    const failed = new Map(checked.failures.map((f) => [f.server, f]));
    const stories: DryRun["stories"] = [];
    for (const planned of checked.plan.stories) {
      const steps: DryRunStep[] = [];
      for (const [i, step] of planned.story.mavenSteps.entries()) {
        const name = planned.specialists[i] ?? "";
        const specialist = deps.specialists.get(name);
        const servers = planned.story.mcpTools[stepKey(step)] ?? [];
        const { tools } = await deps.plane.discover(servers);
        const stepTools = tools.filter((t) => servers.includes(t.server));
        const repertoire = specialist ? deps.plane.repertoire(stepTools, specialistInfo(specialist)) : [];
        const allowed = new Set(repertoire.map((t) => t.qualifiedName));
        const scripted = planned.story.calls?.[stepKey(step)] ?? [];
        const calls = scripted.map((call): DryRunCall => {
          try {
            const r = deps.plane.resolve(call.tool, stepTools, name);
            if (!allowed.has(r.qualifiedName)) {
              refusals++;
              return {
                name: call.tool,
                tool: r.qualifiedName,
                refused: { code: "not_in_repertoire", message: `${r.qualifiedName} is not in ${name}'s repertoire` },
              };
            }
            return { name: call.tool, tool: r.qualifiedName, tier: r.tier, warnings: r.warnings };
          } catch (error) {
            refusals++;
            const failure = toMeshflowError(error, "tool_not_found");
            const parsed = parseQualifiedName(call.tool);
            if (
              failure.code === "tool_not_found" &&
              parsed &&
              !servers.includes(parsed.server) &&
              deps.plane.servers().includes(parsed.server)
            )
              return {
                name: call.tool,
                refused: {
                  code: "not_in_repertoire",
                  message: `server "${parsed.server}" is not one of step ${step}'s servers`,
                },
              };
            return { name: call.tool, refused: { code: failure.code, message: failure.message } };
          }
        });
        const unusable = servers.flatMap((server) => failed.get(server) ?? []);
        const blocked = unusable.length
          ? unusable.map((f) => `MCP server "${f.server}" is unusable (${f.code}): ${f.message}`).join("; ")
          : undefined;
        const harness = deps.models?.harnessFor?.(planned.harness ?? {}, name);
        const plan = blocked
          ? "blocked"
          : specialist?.think
            ? "code"
            : planned.model || harness
              ? "model"
              : scripted.length
                ? "scripted"
                : "blocked";
        const model =
          planned.model && !harness && deps.models && specialist
            ? {
                name: planned.model,
                ...deps.models.get(planned.model).size(
                  modelTask({
                    runId: "dry-run",
                    story: planned.story,
                    step,
                    specialist,
                    stepPurpose: stepPurpose(step),
                    memory: [],
                    tools: repertoire,
                  }),
                ),
              }
            : undefined;
        steps.push({
          step,
          specialist: name,
          servers: [...servers],
          tools: repertoire.length,
          plan,
          calls,
          ...(blocked ? { blocked } : {}),
          ...(model ? { model } : {}),
          ...(harness
            ? {
                harness: { name: harness, tools: [...repertoire.map((t) => t.qualifiedName), ...FINISHING_TOOL_NAMES] },
              }
            : {}),
        });
      }
      stories.push({ id: planned.story.id, skipped: planned.skipped, steps });
    }
    const { tools, failures } = checked;
    const refused = verifies.notices({ tools, failures, plane: deps.plane, mcpConfig: deps.mcpConfig });
    return { stories, refusals, failures, warnings: [...checked.warnings, ...refused] };
  } finally {
    checked.plan.close();
  }
}
