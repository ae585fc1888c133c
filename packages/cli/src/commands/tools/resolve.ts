import { isMeshflowError, MeshflowError, stepKey } from "@meshflow/core";
import { computeRepertoire, createResolver, type Resolution } from "@meshflow/resolver";
import { EXIT, type ExitCode } from "../../exitCodes.js";
import { type Output, printJson } from "../../output.js";
import { commandRouting, loadValidPrd } from "../prdInput.js";
import { loadToolsContext, printFailures, specialistInfo, type ToolsOptions } from "./context.js";

/** Options of `flow tools resolve`. */
export interface ResolveCommandOptions extends ToolsOptions {
  specialist?: string;
  prd?: string;
  story?: string;
  step?: string;
  routing?: string;
}

interface Scope {
  servers: string[] | undefined;
  specialist: string | undefined;
  label: string;
}

async function scopeOf(options: ResolveCommandOptions): Promise<Scope> {
  const given = [options.prd, options.story, options.step].filter((v) => v !== undefined).length;
  if (given === 0) return { servers: undefined, specialist: options.specialist, label: "every configured server" };
  if (given !== 3)
    throw new MeshflowError("usage", "--prd, --story and --step go together: name the PRD, the story id and the step");
  const step = Number(options.step);
  if (!Number.isInteger(step))
    throw new MeshflowError("usage", `--step expects a step number, found "${options.step}"`);
  const routing = commandRouting(options);
  const prd = await loadValidPrd(options.prd ?? "", routing);
  const story = prd.userStories.find((s) => s.id === options.story);
  if (!story)
    throw new MeshflowError(
      "usage",
      `${options.prd}: no story "${options.story}"; stories: ${prd.userStories.map((s) => s.id).join(", ")}`,
    );
  if (!story.mavenSteps.includes(step))
    throw new MeshflowError(
      "usage",
      `${options.prd}: story ${story.id} has no step ${step}; its steps: ${story.mavenSteps.join(", ")}`,
    );
  const servers = story.mcpTools[stepKey(step)] ?? [];
  const specialist = options.specialist ?? routing.steps.get(step);
  return { servers, specialist, label: `${story.id} step ${step}` };
}

function printResolution(output: Output, r: Resolution, repertoire: string): void {
  output.out(`${r.input} → ${r.qualifiedName}`);
  output.out(`  tier:       ${r.tier}${r.via ? ` (${r.via})` : ""}`);
  output.out(`  server:     ${r.server}`);
  output.out(`  tool:       ${r.tool}`);
  output.out(`  repertoire: ${repertoire}`);
  for (const warning of r.warnings) output.err(`warning: ${warning}`);
}

/** `flow tools resolve <name>`: which real tool a name means, with provenance, or why none. */
export async function resolveCommand(name: string, options: ResolveCommandOptions, output: Output): Promise<ExitCode> {
  const scope = await scopeOf(options);
  const ctx = await loadToolsContext(options, scope.servers);
  printFailures(output, ctx.failures);
  const specialist = scope.specialist ? specialistInfo(scope.specialist, ctx.skills) : undefined;
  const repertoire = specialist
    ? computeRepertoire(ctx.tools, specialist, { skills: ctx.skills, index: ctx.index })
    : ctx.tools;
  const servers = [...new Set(repertoire.map((t) => t.server))];
  const described =
    `${repertoire.length} tools of ${servers.join(", ") || "no server"} (${scope.label}` +
    `${specialist ? `, specialist ${specialist.name}${specialist.skills ? ` with skills ${specialist.skills.join(", ")}` : ""}` : ""})`;
  const resolver = createResolver({ aliases: ctx.aliases, capabilities: ctx.index });
  const failed = ctx.failures.length ? EXIT.environment : undefined;
  try {
    const resolution = resolver.resolve(name, repertoire, { specialist: specialist?.name });
    const { descriptor, ...provenance } = resolution;
    if (options.json)
      printJson(output, {
        resolution: { ...provenance, annotations: descriptor.annotations },
        repertoire: described,
        failures: ctx.failures,
      });
    else printResolution(output, resolution, described);
    return failed ?? EXIT.ok;
  } catch (error) {
    if (!isMeshflowError(error) || (error.code !== "tool_not_found" && error.code !== "tool_ambiguous")) throw error;
    const candidates = (error.details.candidates as string[] | undefined) ?? [];
    if (options.json)
      printJson(output, {
        error: { code: error.code, message: error.message, candidates },
        repertoire: described,
        failures: ctx.failures,
      });
    else {
      output.err(`flow: ${error.message}`);
      output.err(`  repertoire: ${described}`);
    }
    return failed ?? EXIT.failure;
  }
}
