import { dirname, relative, resolve, sep } from "node:path";
import { formatProblem, loadMcpConfig, type McpConfig, MeshflowError, projectRoot } from "@meshflow/core";
import { prdSchemaRef } from "../../builtin.js";
import { EXIT, type ExitCode } from "../../exitCodes.js";
import { type Output, plural, printJson } from "../../output.js";
import { commandRouting, knownSpecialists } from "../prdInput.js";
import { readProjectFacts } from "../projectFacts.js";
import { resolveSkillsDir } from "../runEnvironment.js";
import { buildPrd } from "./buildPrd.js";
import { checkPrd } from "./checkPrd.js";
import type { Guess } from "./Guess.js";
import { parseMarkdownPrd } from "./parseMarkdownPrd.js";
import { readBoundedText } from "./readBoundedText.js";
import { type ServerCapabilities, serverCapabilities } from "./serverCapabilities.js";
import { stepNeeds } from "./stepNeeds.js";
import { storyTypes } from "./storyTypes.js";
import { verifyCommands } from "./verifyCommands.js";
import { DEFAULT_PRD, refuseExisting, writeNewPrd } from "./writeNewPrd.js";

/** Options of `flow prd convert`. */
export interface ConvertOptions {
  /** The PRD to write (default `prd/prd.json`). */
  out?: string;
  /** Replace `out` when it exists. */
  force?: boolean;
  json?: boolean;
  /** `--no-discover`: start no server; no step gets servers. */
  discover?: boolean;
  /** The PRD's `model` (`--model`). */
  model?: string;
  mcpConfig?: string;
  routing?: string;
  agents?: string[] | string;
  skills?: string;
}

/** What the configured servers offer, or undefined (with the reason among the guesses). */
async function offeredCapabilities(
  mcpConfig: McpConfig,
  options: ConvertOptions,
  guesses: Guess[],
): Promise<ServerCapabilities | undefined> {
  if (options.discover === false) {
    guesses.push({ message: "no server was started (--no-discover): no step has servers; add them to mcpTools" });
    return undefined;
  }
  if (!mcpConfig.file) {
    guesses.push({
      message:
        "no MCP config found (--mcp-config, FLOW_MCP_CONFIG, ./.mcp.json): no step has servers; add them to mcpTools",
    });
    return undefined;
  }
  const found = await serverCapabilities(mcpConfig, { skillsDir: resolveSkillsDir(options.skills) });
  for (const failure of found.failures)
    guesses.push({
      message: `MCP server "${failure.server}" could not list its tools (${failure.code}: ${failure.message.split("\n")[0]}): chosen for no step`,
    });
  return found;
}

function printGuesses(output: Output, source: string, guesses: readonly Guess[]): void {
  if (!guesses.length) return;
  output.out("guessed (check these):");
  for (const g of guesses) {
    const where = [g.line !== undefined ? `${source}:${g.line}` : undefined, g.story].filter(Boolean).join(": ");
    output.out(`  ${where ? `${where}: ` : ""}${g.message}`);
  }
}

/**
 * `flow prd convert <file.md>`: a Markdown PRD (ralph's or ralph-tui's shape) as a meshflow PRD, no
 * model involved. Steps come from each story's kind (`data/story-types.yaml`), servers from what the
 * configured servers offer for each step (`data/step-capabilities.yaml` and the capability catalog),
 * `verify` from the project's test command and the quality gates. The result is validated before it is
 * written (atomically); an existing file is replaced only with `--force`.
 */
export async function convertCommand(input: string, options: ConvertOptions, output: Output): Promise<ExitCode> {
  const out = options.out ?? DEFAULT_PRD;
  const text = readBoundedText(input);
  refuseExisting(out, options.force);
  const markdown = parseMarkdownPrd(text);
  if (!markdown.stories.length)
    throw new MeshflowError(
      "prd_invalid",
      `${input}: no user stories found: expected headings like "### US-001: Title" (under "## User Stories"), each with an "Acceptance Criteria" list`,
      { details: { file: input } },
    );
  const prdDir = dirname(resolve(out));
  const projectDir = projectRoot(prdDir);
  const facts = readProjectFacts(projectDir);
  const guesses: Guess[] = [];
  const cwd = relative(prdDir, projectDir).split(sep).join("/");
  const verify = verifyCommands(facts.test, markdown.gates, cwd, guesses);
  const mcpConfig = loadMcpConfig({ file: options.mcpConfig });
  const servers = await offeredCapabilities(mcpConfig, options, guesses);
  const prd = buildPrd(
    markdown,
    {
      project: facts.name,
      verify,
      servers,
      kinds: storyTypes(),
      needs: stepNeeds(),
      schema: prdSchemaRef(prdDir),
      ...(options.model ? { model: options.model } : {}),
    },
    guesses,
  );
  const routing = commandRouting(options);
  const checked = checkPrd(out, prd, { routing, specialists: await knownSpecialists(options.agents), mcpConfig });
  const stories = markdown.stories.length;
  const report = { file: out, source: input, stories, guesses, problems: checked.problems };
  if (!checked.prd) {
    if (options.json) printJson(output, { ...report, written: false });
    else {
      printGuesses(output, input, guesses);
      for (const problem of checked.problems) output.err(formatProblem(problem));
      output.err(
        `${input}: the PRD made from it is not valid (${plural(checked.problems.length, "problem")}); nothing written`,
      );
    }
    return EXIT.failure;
  }
  writeNewPrd(out, prd, options.force);
  if (options.json) {
    printJson(output, { ...report, written: true, prd });
    return EXIT.ok;
  }
  const steps = checked.prd.userStories.reduce((n, s) => n + s.mavenSteps.length, 0);
  output.out(`wrote ${out} (${plural(stories, "story", "stories")}, ${plural(steps, "step")}) from ${input}`);
  printGuesses(output, input, guesses);
  for (const problem of checked.problems) output.err(formatProblem(problem));
  output.out(`\nnext:\n  flow prd lint ${out}\n  flow plan ${out}`);
  return EXIT.ok;
}
