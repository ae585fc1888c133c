import { join } from "node:path";
import { formatProblem, loadPrdFile, MeshflowError } from "@meshflow/core";
import { CORE_TOOLSET, defineLocalTool, jsonResult, type ServedTool, type ToolsetServer } from "@meshflow/mcp/server";
import {
  classifyTools,
  computeCoverage,
  coverageSpecialists,
  FileClassificationCache,
  loadSkillsFolder,
  prdServers,
} from "@meshflow/resolver";
import { dryRun, specialistInfo } from "@meshflow/runtime/host";
import { z } from "zod";
import type { RunToolsContext } from "./runTools.js";

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/** `flow_list_specialists`, `flow_plan` and `flow_coverage`. */
export function planTools({ env, prds }: Pick<RunToolsContext, "env" | "prds">, hub: ToolsetServer): ServedTool[] {
  return [
    defineLocalTool({
      name: "flow_list_specialists",
      toolset: CORE_TOOLSET,
      title: "List specialists",
      rich: "Lists the specialist agents meshflow routes story steps to: each one's name, description, steps, skills, whether it is read-only and the file it is defined in, and the step → specialist routing table with steps that have no loaded specialist. Use it to see who would do a step before flow_plan or flow_run_prd.",
      minimal: "List specialists and the step → specialist routing.",
      input: {},
      annotations: READ_ONLY,
      run: async () => {
        const loaded = await env.specialistFiles();
        const specialists = [...loaded].map(([, { specialist, file }]) => ({ ...specialistInfo(specialist), file }));
        const routing = [...env.routing().steps].sort(([a], [b]) => a - b);
        const steps = routing.map(([step, name]) => ({ step, specialist: name, loaded: loaded.has(name) }));
        const text = [
          ...specialists.map((s) => `${s.name}: ${s.description ?? ""} (steps ${(s.steps ?? []).join(", ") || "-"})`),
          `routing: ${steps.map((s) => `${s.step}→${s.specialist}${s.loaded ? "" : " (not loaded)"}`).join(", ")}`,
        ].join("\n");
        return jsonResult({ specialists, routing: steps, agents: env.agents }, text);
      },
    }),
    defineLocalTool({
      name: "flow_plan",
      toolset: CORE_TOOLSET,
      title: "Plan a PRD",
      rich: "Dry-runs a PRD without calling any tool: validates it, routes every story step to its specialist, discovers each step's servers and resolves every scripted call to the tool it would reach (or the refusal it would get). Use it before flow_run_prd to catch invalid PRDs, unroutable steps and unresolvable tool names.",
      minimal: "Dry-run a PRD: steps, specialists, tools, scripted calls resolved.",
      input: {
        prd: z.string().min(1).describe("PRD file, relative to the server's working folder"),
        stories: z.array(z.string()).optional().describe("only these story ids"),
      },
      annotations: READ_ONLY,
      run: async ({ prd, stories }) => {
        const prdFile = prds.path(prd);
        const [plane, specialists] = await Promise.all([env.plane(), env.specialists()]);
        const result = await dryRun(
          { plane, specialists, routing: env.routing(), mcpConfig: env.mcpConfig },
          { prdFile, ...(stories?.length ? { stories } : {}) },
        );
        const blocked = result.stories.flatMap((s) =>
          s.skipped ? [] : s.steps.filter((st) => st.plan === "blocked").map((st) => `${s.id} step ${st.step}`),
        );
        const lines = result.stories.map(
          (s) =>
            `${s.id}${s.skipped ? " (skipped: passes is true)" : ""}: ${s.steps.map((st) => `${st.step}→${st.specialist} ${st.plan} (${st.tools} tools)`).join(", ")}`,
        );
        lines.push(
          `${result.refusals} scripted call(s) would be refused${blocked.length ? `; blocked: ${blocked.join(", ")}` : ""}`,
        );
        return jsonResult({ prd: prdFile, ...result, blocked }, lines.join("\n"));
      },
    }),
    defineLocalTool({
      name: "flow_coverage",
      toolset: CORE_TOOLSET,
      title: "Tool coverage",
      rich: "Reports which downstream tools at least one specialist can reach (after skills, read-only rules and alias maps), per specialist the tools on its servers, available and mapped, and every unreachable tool with the reason. With a PRD, each specialist's servers are those of its steps; without one, every server. Use it to find tools no agent can use.",
      minimal: "Show which tools specialists can reach, and the unreachable ones.",
      input: { prd: z.string().optional().describe("PRD file: specialists' servers from its steps") },
      annotations: READ_ONLY,
      run: async ({ prd }) => {
        const skillsDir = env.skillsDir;
        if (!skillsDir)
          throw new MeshflowError(
            "file_not_found",
            "flow_coverage needs a skills folder (capabilities.yaml, SKILL.md files): start flow serve with --skills <dir> or FLOW_SKILLS, or from a folder with ./skills",
          );
        const { catalog, overrides, skills, aliases } = loadSkillsFolder(skillsDir);
        const configured = [...env.mcpConfig.servers.keys()];
        const { tools, failures } = await hub.pool.discover(configured);
        const cache = new FileClassificationCache(join(env.store.root, "cache", "classifications.json"));
        let index: Awaited<ReturnType<typeof classifyTools>>;
        try {
          index = await classifyTools(tools, { catalog, cache, overrides });
        } finally {
          await cache.close();
        }
        const routing = env.routing();
        let byPrd: Map<string, string[]> | undefined;
        if (prd) {
          const loaded = await loadPrdFile(prds.path(prd), { routing });
          if (!loaded.prd)
            throw new MeshflowError(
              "prd_invalid",
              loaded.problems
                .filter((p) => p.severity === "error")
                .map(formatProblem)
                .join("\n"),
              { details: { problems: loaded.problems } },
            );
          byPrd = prdServers(loaded.prd, routing);
        }
        const definitions = new Map([...(await env.specialists())].map(([name, s]) => [name, specialistInfo(s)]));
        // The specialists as runs see them, the same input flow tools coverage uses.
        const specialists = coverageSpecialists({
          routing,
          definitions,
          skills,
          configured,
          ...(byPrd ? { byPrd } : {}),
        });
        const report = computeCoverage({ tools, specialists, skills, index, aliases });
        const text = `${report.reachable} of ${report.tools} tools reachable by at least one specialist (${report.percent.toFixed(1)}%); unreachable: ${report.unreachable.map((u) => u.qualifiedName).join(", ") || "none"}`;
        return jsonResult(
          { ...report, failures: failures.map(({ server, code, message }) => ({ server, code, message })) },
          text,
        );
      },
    }),
  ];
}
