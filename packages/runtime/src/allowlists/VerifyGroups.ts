import { type McpConfig, type Story, statedAllowlist, stepKey, type ToolDescriptor } from "@meshflow/core";
import type { Specialist } from "../specialists/defineSpecialist.js";
import type { DiscoveryFailure, ToolPlane } from "../ToolPlane.js";
import { refusedVerifies } from "./refusedVerifies.js";

/** What {@link VerifyGroups.notices} judges the groups with: the preflight's discovery and the run's parts. */
export interface VerifyJudging {
  /** The tools the preflight listed, and the servers it could not list (their steps are not judged). */
  tools: readonly ToolDescriptor[];
  failures: readonly DiscoveryFailure[];
  plane: Pick<ToolPlane, "repertoire" | "capabilities">;
  mcpConfig: Pick<McpConfig, "file" | "servers">;
}

/** Story steps alike in all that decides whether their verify commands would be refused. */
interface Group {
  /** The first story of the group: it stands for all of them. */
  story: Story;
  step: number;
  specialist: string;
  servers: readonly string[];
  ids: string[];
  count: number;
}

/** Distinct groups kept (one story each in memory); steps beyond them are counted, not judged. */
const KEPT = 1024;
/** Story ids a notice names before it counts the rest. */
const NAMED = 3;

/**
 * The story steps whose verify commands a run checks at its start against the allowlist of the tool
 * their specialist runs them through (`verifyTool`, `refusedVerifies`). The preflight hands over each
 * story as it reads it ({@link add}), so no story is read twice; steps alike in specialist, step,
 * servers, the specialist's settings and the commands are one group, judged once after discovery.
 */
export class VerifyGroups {
  readonly #specialists: ReadonlyMap<string, Specialist>;
  readonly #judges: ReadonlySet<string>;
  readonly #groups = new Map<string, Group>();
  #unjudged = 0;

  constructor(specialists: ReadonlyMap<string, Specialist>) {
    this.#specialists = specialists;
    this.#judges = new Set([...specialists].filter(([, s]) => s.verifyTool).map(([name]) => name));
  }

  /** A story to run, with the routed specialist of each of its steps. */
  add(story: Story, specialists: readonly string[]): void {
    if (!this.#judges.size || !story.verify?.length) return;
    const commands = JSON.stringify(story.verify);
    story.mavenSteps.forEach((step, i) => {
      const name = specialists[i] ?? "";
      if (!this.#judges.has(name)) return;
      const servers = story.mcpTools[stepKey(step)] ?? [];
      const settings = JSON.stringify(story.agentConfig?.[name] ?? null);
      const key = [name, step, servers.join("\u0000"), settings, commands].join("\u0001");
      let group = this.#groups.get(key);
      if (!group) {
        if (this.#groups.size >= KEPT) {
          this.#unjudged++;
          return;
        }
        group = { story, step, specialist: name, servers, ids: [], count: 0 };
        this.#groups.set(key, group);
      }
      if (group.ids.length < NAMED) group.ids.push(story.id);
      group.count++;
    });
  }

  /**
   * One notice per refusal, naming the stories it concerns (`US-001, US-002, US-003 and 7 more stories:
   * verify "npm test" would be refused by …`). Nothing when no listed tool states an allowlist.
   */
  notices(judging: VerifyJudging): string[] {
    if (!this.#groups.size || !judging.tools.some((t) => statedAllowlist(t))) return [];
    const failed = new Set(judging.failures.map((f) => f.server));
    const found = new Map<string, { ids: string[]; count: number }>();
    for (const group of this.#groups.values()) {
      if (group.servers.some((s) => failed.has(s))) continue;
      const refusals = refusedVerifies({
        story: group.story,
        step: group.step,
        specialist: this.#specialists.get(group.specialist),
        stepTools: judging.tools.filter((t) => group.servers.includes(t.server)),
        plane: judging.plane,
        mcpConfig: judging.mcpConfig,
      });
      for (const refusal of refusals) {
        const seen = found.get(refusal.reason) ?? { ids: [], count: 0 };
        for (const id of group.ids) if (seen.ids.length < NAMED) seen.ids.push(id);
        seen.count += group.count;
        found.set(refusal.reason, seen);
      }
    }
    const notices = [...found].map(([reason, { ids, count }]) => {
      const more = count - ids.length;
      return `${ids.join(", ")}${more > 0 ? ` and ${more} more ${more === 1 ? "story" : "stories"}` : ""}: ${reason}`;
    });
    if (this.#unjudged)
      notices.push(
        `${this.#unjudged} story step${this.#unjudged === 1 ? "" : "s"} with verify commands were not checked against their tools' allowlists (more than ${KEPT} distinct steps, servers, settings and commands)`,
      );
    return notices;
  }
}
