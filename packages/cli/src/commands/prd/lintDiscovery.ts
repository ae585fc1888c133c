import type { McpConfig, Prd, RoutingTable } from "@meshflow/core";
import { stepKey } from "@meshflow/core";
import type { VerifyRefusal } from "@meshflow/runtime/host";
import type { ServerFailure } from "../../discovery/discoverTools.js";
import { createPool, withPool } from "../../mcpSetup.js";
import type { LoadedSpecialistFacts } from "../prdInput.js";
import { invalidServers, offeredBy } from "./serverCapabilities.js";

/** What `flow prd lint` learns from the servers its PRD names. */
export interface LintDiscovery {
  /** Each server that listed its tools → the capabilities its tools have. */
  offered: ReadonlyMap<string, ReadonlySet<string>>;
  /** Verify commands the tool of their step would refuse (its stated allowlist lacks the executable). */
  refusals: VerifyRefusal[];
  /** Servers that could not be listed (or are unusable in the config): not judged. */
  failures: ServerFailure[];
}

/** What {@link lintDiscovery} needs besides the PRD and the servers. */
export interface LintDiscoveryOptions {
  /** The config the servers come from (its file is named in the fixes). */
  mcpConfig: McpConfig;
  routing: RoutingTable;
  specialists: ReadonlyMap<string, LoadedSpecialistFacts>;
  skillsDir: string | undefined;
}

/**
 * Starts the servers of `servers` once, lists their tools and classifies them with the capability
 * catalog (as a run does), then for every story to run: each step's repertoire, as its specialist would
 * get it, and the verify commands the tool it runs them through would refuse (`refusedVerifies`).
 */
export async function lintDiscovery(
  prd: Prd,
  servers: McpConfig,
  options: LintDiscoveryOptions,
): Promise<LintDiscovery> {
  const { createToolPlane, refusedVerifies } = await import("@meshflow/runtime/host");
  const names = [...servers.servers.keys()];
  const pool = await createPool(servers);
  return withPool(pool, async (p) => {
    const found = await p.discover(names);
    const failures: ServerFailure[] = [
      ...found.failures.map(({ server, code, message }) => ({ server, code, message })),
      ...invalidServers(servers),
    ];
    // The plane classifies the listed tools for the skills; the pool's listings are cached, nothing is asked twice.
    const plane = await createToolPlane({
      mcpConfig: servers,
      clientPool: p,
      ...(options.skillsDir ? { skillsDir: options.skillsDir } : {}),
    });
    try {
      await plane.discover([...new Set(found.tools.map((t) => t.server))]);
      const offered = offeredBy(names, found.tools, failures, (tool) => plane.capabilities?.(tool.qualifiedName) ?? []);
      const refusals: VerifyRefusal[] = [];
      for (const story of prd.userStories) {
        if (story.passes || !story.verify?.length) continue;
        for (const step of story.mavenSteps) {
          const stepServers = story.mcpTools[stepKey(step)] ?? [];
          // A step with a server that was not listed is not judged: its tools are unknown.
          if (stepServers.some((s) => !offered.has(s))) continue;
          const specialist = options.specialists.get(options.routing.steps.get(step) ?? "")?.specialist;
          const stepTools = found.tools.filter((t) => stepServers.includes(t.server));
          refusals.push(
            ...refusedVerifies({ story, step, specialist, stepTools, plane, mcpConfig: options.mcpConfig }),
          );
        }
      }
      return { offered, refusals, failures };
    } finally {
      await plane.close();
    }
  });
}
