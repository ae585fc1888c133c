import { dirname, relative, resolve, sep } from "node:path";
import {
  formatProblem,
  loadMcpConfig,
  MeshflowError,
  type ModelTurnReport,
  type Prd,
  projectRoot,
  type VerifyCommand,
} from "@meshflow/core";
import { prdSchemaRef } from "../../builtin.js";
import { EXIT, type ExitCode } from "../../exitCodes.js";
import { type Output, plural, printJson } from "../../output.js";
import { buildModels, type CassetteFlags, type ModelFlags, modelSettings } from "../modelSettings.js";
import { commandRouting, loadedSpecialists } from "../prdInput.js";
import { readProjectFacts } from "../projectFacts.js";
import { resolveSkillsDir } from "../runEnvironment.js";
import { checkPrd } from "./checkPrd.js";
import { draftInstructions } from "./draftInstructions.js";
import { type Draft, draftPrd } from "./draftPrd.js";
import { lintPrd } from "./lintPrd.js";
import { readBoundedText } from "./readBoundedText.js";
import { reviewDraft } from "./reviewDraft.js";
import { serverCapabilities } from "./serverCapabilities.js";
import { stepNeeds } from "./stepNeeds.js";
import { DEFAULT_PRD, refuseExisting, writeNewPrd } from "./writeNewPrd.js";

/** Options of `flow prd new`. */
export interface NewPrdOptions extends ModelFlags, CassetteFlags {
  /** What the PRD is for, in a sentence or a paragraph. */
  describe?: string;
  /** A notes file (Markdown or text) the draft is made from. */
  from?: string;
  out?: string;
  force?: boolean;
  json?: boolean;
  /** Write the first accepted draft without asking, also on a terminal. */
  yes?: boolean;
  /** `--no-discover`: start no MCP server; the draft may name none. */
  discover?: boolean;
  mcpConfig?: string;
  routing?: string;
  agents?: string[] | string;
  skills?: string;
}

/** The drafted value as it is checked and written: its `$schema`, and every story not passed yet. */
function completeDraft(value: unknown, schema: string): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const prd = value as Record<string, unknown>;
  const stories = Array.isArray(prd.userStories)
    ? prd.userStories.map((s: unknown) =>
        typeof s === "object" && s !== null ? { ...(s as object), passes: false, notes: "" } : s,
      )
    : prd.userStories;
  return { $schema: schema, ...prd, userStories: stories };
}

function progress(output: Output, model: string): (report: ModelTurnReport) => void {
  return (r) =>
    output.err(
      `flow: ${model} turn ${r.turn}: ${r.toolCalls.join(", ") || "no tool call"} (${r.inputTokens + r.outputTokens} tokens)`,
    );
}

/**
 * `flow prd new`: a model (`--model`, FLOW_MODEL) or a harness (`--harness`) drafts a PRD from a
 * description and notes, through the model loop and budgets of a step (`--max-turns`,
 * `--max-step-tokens`, `--step-timeout`, `--max-step-cost`); the draft is checked (schema, routing,
 * known servers), repaired once or refused. On a terminal it is shown for accept, edit or regenerate;
 * then written atomically (never over an existing file without `--force`) and linted.
 */
export async function newPrdCommand(options: NewPrdOptions, output: Output): Promise<ExitCode> {
  if (!options.describe && !options.from)
    throw new MeshflowError("usage", 'flow prd new needs --describe "…" or --from <notes.md> (or both)');
  const notes = options.from ? readBoundedText(options.from) : undefined;
  const out = options.out ?? DEFAULT_PRD;
  refuseExisting(out, options.force);
  const request = [options.describe, notes !== undefined ? `Notes (${options.from}):\n\n${notes}` : undefined]
    .filter(Boolean)
    .join("\n\n");
  const prdDir = dirname(resolve(out));
  const projectDir = projectRoot(prdDir);
  const facts = readProjectFacts(projectDir);
  const cwd = relative(prdDir, projectDir).split(sep).join("/");
  const verify: VerifyCommand | undefined = facts.test
    ? { name: "tests", run: facts.test, ...(cwd ? { cwd } : {}) }
    : undefined;
  const mcpConfig = loadMcpConfig({ file: options.mcpConfig });
  const found =
    options.discover !== false && mcpConfig.file
      ? await serverCapabilities(mcpConfig, { skillsDir: resolveSkillsDir(options.skills) })
      : undefined;
  const routing = commandRouting(options);
  const specialists = await loadedSpecialists(options.agents);
  const schema = prdSchemaRef(prdDir);
  const check = (value: unknown) =>
    checkPrd(out, completeDraft(value, schema), { routing, specialists: new Set(specialists.keys()), mcpConfig });

  const catalog = await buildModels(modelSettings(options));
  const name = catalog.nameFor({ id: "PRD" }, undefined);
  if (!name && !options.harness)
    throw new MeshflowError(
      "usage",
      "flow prd new needs a model: --model <provider:model-id>, FLOW_MODEL, or --harness <name>",
    );
  await catalog.check(name ? [name] : [], options.harness ? [options.harness] : []);
  const model = catalog.get(name, options.harness);
  const instructions = draftInstructions({
    file: out,
    project: facts.name,
    verify,
    routing,
    needs: stepNeeds(),
    servers: found?.servers ?? new Map(),
    unlisted: found?.failures.map((f) => f.server) ?? [],
  });
  const interactive = !options.json && !options.yes && process.stdin.isTTY === true && process.stderr.isTTY === true;
  const rl = interactive
    ? (await import("node:readline/promises")).createInterface({ input: process.stdin, output: process.stderr })
    : undefined;
  let draft: Draft;
  let prd: Prd | undefined;
  // Ctrl-C stops the drafting model (a harness program in its own process group included) before flow
  // ends; at the review's question the terminal's Ctrl-C reaches the prompt, which ends the same way.
  const interrupt = new AbortController();
  const onSigint = () => interrupt.abort();
  process.once("SIGINT", onSigint);
  rl?.on("SIGINT", onSigint);
  try {
    for (;;) {
      draft = await draftPrd(model, {
        instructions,
        request,
        file: out,
        check,
        knownServers: new Set(mcpConfig.servers.keys()),
        signal: interrupt.signal,
        ...(options.json ? {} : { onTurn: progress(output, model.name) }),
      });
      if (!rl) {
        prd = draft.prd;
        break;
      }
      const choice = await reviewDraft(draft.prd, check, rl, output, interrupt.signal);
      if (choice.kind === "regenerate") continue;
      if (choice.kind === "accept") prd = choice.prd;
      break;
    }
  } catch (error) {
    if (!interrupt.signal.aborted) throw error;
    output.err("flow: interrupted: nothing written");
    return EXIT.interrupted;
  } finally {
    process.off("SIGINT", onSigint);
    rl?.close();
  }
  if (!prd) {
    output.err("flow: quit: nothing written");
    return EXIT.ok;
  }
  writeNewPrd(out, prd, options.force);
  const warnings = lintPrd(prd, {
    maxCriteria: 8,
    test: facts.test,
    routing,
    specialists,
    needs: stepNeeds(),
    offered: found?.servers,
    // The servers were listed before the draft, and closed: `flow prd lint` checks its verify commands.
    refusals: [],
    modelFromEnv: Boolean(process.env.FLOW_MODEL),
  });
  if (options.json) {
    printJson(output, { file: out, written: true, model: model.name, usage: draft.usage, warnings, prd });
    return EXIT.ok;
  }
  const steps = prd.userStories.reduce((n, s) => n + s.mavenSteps.length, 0);
  output.out(
    `wrote ${out} (${plural(prd.userStories.length, "story", "stories")}, ${plural(steps, "step")}), drafted by ${model.name} in ${plural(draft.usage.turns, "turn")}`,
  );
  for (const problem of draft.warnings) output.err(formatProblem(problem));
  for (const w of warnings)
    output.out(formatProblem({ file: out, path: w.path, message: `${w.message} [${w.rule}]`, severity: "warning" }));
  output.out(`\nnext:\n  flow plan ${out}\n  flow run ${out}`);
  return EXIT.ok;
}
