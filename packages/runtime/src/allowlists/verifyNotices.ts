import { canonicalJson, type McpConfig, statedAllowlist, stepKey, type ToolDescriptor } from "@meshflow/core";
import type { RunPlan } from "../RunPlan.js";
import type { Specialist } from "../specialists/defineSpecialist.js";
import type { DiscoveryFailure, ToolPlane } from "../ToolPlane.js";
import { refusedVerifies, type VerifyRefusal } from "./refusedVerifies.js";

/** What {@link verifyNotices} judges a plan with: the preflight's discovery and the run's parts. */
export interface VerifyNoticesInput {
  plan: Pick<RunPlan, "stories">;
  specialists: ReadonlyMap<string, Specialist>;
  /** The tools the preflight listed, and the servers it could not list (their steps are not judged). */
  tools: readonly ToolDescriptor[];
  failures: readonly DiscoveryFailure[];
  plane: Pick<ToolPlane, "repertoire" | "capabilities">;
  mcpConfig: Pick<McpConfig, "file" | "servers">;
}

/** Distinct (specialist, servers, settings, verify) combinations whose refusals are kept. */
const KEPT = 1024;
/** Story ids a notice names before it counts the rest. */
const NAMED = 3;

/**
 * What a run says at its start about verify commands that would be refused (see `refusedVerifies`): one
 * notice per refusal, naming the stories it concerns. From the tools the preflight already listed, so
 * nothing is started; a PRD whose stories share steps and commands is judged once per combination.
 */
export function verifyNotices(input: VerifyNoticesInput): string[] {
  const judges = new Set([...input.specialists].filter(([, s]) => s.verifyTool).map(([name]) => name));
  if (!judges.size || !input.tools.some((t) => statedAllowlist(t))) return [];
  const failed = new Set(input.failures.map((f) => f.server));
  const known = new Map<string, VerifyRefusal[]>();
  const found = new Map<string, { ids: string[]; count: number }>();
  for (const planned of input.plan.stories) {
    if (planned.skipped || !planned.specialists.some((name) => judges.has(name))) continue;
    const story = planned.story;
    if (!story.verify?.length) continue;
    story.mavenSteps.forEach((step, i) => {
      const name = planned.specialists[i] ?? "";
      if (!judges.has(name)) return;
      const servers = story.mcpTools[stepKey(step)] ?? [];
      if (servers.some((s) => failed.has(s))) return;
      const key = [name, step, servers.join("\u0000"), canonicalJson(story.agentConfig?.[name] ?? null)]
        .concat(canonicalJson(story.verify))
        .join("\u0001");
      let refusals = known.get(key);
      if (!refusals) {
        refusals = refusedVerifies({
          story,
          step,
          specialist: input.specialists.get(name),
          stepTools: input.tools.filter((t) => servers.includes(t.server)),
          plane: input.plane,
          mcpConfig: input.mcpConfig,
        });
        if (known.size >= KEPT) known.clear();
        known.set(key, refusals);
      }
      for (const refusal of refusals) {
        const seen = found.get(refusal.reason) ?? { ids: [], count: 0 };
        if (seen.ids.length < NAMED) seen.ids.push(story.id);
        seen.count++;
        found.set(refusal.reason, seen);
      }
    });
  }
  return [...found].map(([reason, { ids, count }]) => {
    const more = count - ids.length;
    return `${ids.join(", ")}${more > 0 ? ` and ${more} more ${more === 1 ? "story" : "stories"}` : ""}: ${reason}`;
  });
}
