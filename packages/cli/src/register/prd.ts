import type { ConvertOptions } from "../commands/prd/convert.js";
import type { LintOptions } from "../commands/prd/lint.js";
import type { NewPrdOptions } from "../commands/prd/newPrd.js";
import { cassetteOptions, modelOptions } from "./modelOptions.js";
import {
  agentsOption,
  commandGroup,
  EXIT_CODES_HELP,
  flags,
  mcpConfigOption,
  positiveInt,
  type Registrar,
  routingOption,
  skillsOption,
} from "./shared.js";

/** The default of `flow prd lint --max-criteria` (kept here so `--help` shows it without loading the command). */
const MAX_CRITERIA = 8;

/** `flow prd convert|new|lint`: writing PRDs. */
export const registerPrd: Registrar = (program, deps) => {
  const { output, setExit } = deps;
  const prd = commandGroup(
    program,
    "prd",
    "write PRDs: convert a Markdown PRD, draft one with a model, lint one",
    deps,
  );

  prd
    .command("convert")
    .description(
      "turn a Markdown PRD (ralph's or ralph-tui's shape: ## User Stories, ### US-001: Title, Acceptance Criteria) into a meshflow PRD, no model; lists what it guessed",
    )
    .argument("<file.md>", "the Markdown PRD (at most 1 MiB); ralph-tui's [PRD] … [/PRD] markers are understood")
    .option("--out <file>", "the PRD to write", "prd/prd.json")
    .option("--force", "replace --out when it exists (never replaced otherwise)")
    .option("--model <provider:model-id>", "the PRD's model, for every story (else a run's --model or FLOW_MODEL)")
    .option("--no-discover", "start no MCP server: no step gets servers (add them to mcpTools by hand)")
    .option(
      "--json",
      'print {"file", "source", "stories", "written", "guesses": [{"story", "step", "line", "message"}], "problems", "prd"}',
    )
    .addOption(mcpConfigOption())
    .addOption(routingOption())
    .addOption(agentsOption())
    .addOption(skillsOption())
    .addHelpText(
      "after",
      `
Steps come from each story's kind (a **Type:** or **Steps:** line, else its words), servers from
what the configured MCP servers offer for each step, verify from package.json's test script and the
"Quality Gates" commands. The PRD is validated before it is written, atomically.
${EXIT_CODES_HELP}`,
    )
    .action(async (file: string, options) => {
      const { convertCommand } = await import("../commands/prd/convert.js");
      setExit(await convertCommand(file, flags<ConvertOptions>()(options), output));
    });

  cassetteOptions(
    modelOptions(
      prd
        .command("new")
        .description(
          "a model or coding agent drafts a PRD (small stories, dependencies first, checkable criteria, verify); the draft is checked, repaired once or refused; on a terminal, shown for accept, edit or regenerate",
        )
        .option("--describe <text>", "what the PRD is for")
        .option("--from <notes.md>", "a notes file to draft it from (at most 1 MiB)")
        .option("--out <file>", "the PRD to write", "prd/prd.json")
        .option("--force", "replace --out when it exists (never replaced otherwise)")
        .option("-y, --yes", "write the first accepted draft without asking, also on a terminal")
        .option("--no-discover", "start no MCP server: the draft names no server")
        .option("--json", 'print {"file", "written", "model", "usage", "warnings", "prd"}; asks nothing (as --yes)')
        .addOption(mcpConfigOption())
        .addOption(routingOption())
        .addOption(agentsOption())
        .addOption(skillsOption()),
    ),
  )
    .addHelpText(
      "after",
      `
The model drafts through a tool, prd__submit_draft, within the budgets of a step (--max-turns,
--max-step-tokens, --step-timeout, --max-step-cost): a draft with problems is sent back once with
them, a second one is refused (exit 1, the problems listed); a model that never submits a valid
draft stops with budget_exhausted (exit 1). The written PRD is linted as flow prd lint does.
Edit uses $VISUAL, else $EDITOR, else vi.
${EXIT_CODES_HELP}`,
    )
    .action(async (options) => {
      const { newPrdCommand } = await import("../commands/prd/newPrd.js");
      setExit(await newPrdCommand(flags<NewPrdOptions>()(options), output));
    });

  prd
    .command("lint")
    .description(
      "warn about what a validator cannot see: uncheckable criteria, no verify while the project has tests, verify commands a step's tool does not allow, steps whose servers lack what they need, steps with no plan, stories too large",
    )
    .argument("<prd.json>", "the PRD (never modified)")
    .option(
      "--max-criteria <n>",
      "a story with more acceptance criteria than this is too large",
      positiveInt("--max-criteria"),
      MAX_CRITERIA,
    )
    .option("--no-discover", "start no MCP server: the steps' capabilities and tools' allowlists are not checked")
    .option(
      "--json",
      'print {"file", "valid", "clean", "warnings": [{"rule", "path", "story", "step", "message"}], "notes"}',
    )
    .addOption(mcpConfigOption())
    .addOption(routingOption())
    .addOption(agentsOption())
    .addOption(skillsOption())
    .addHelpText(
      "after",
      `
Rules: uncheckable-criteria, too-many-criteria, no-verify, verify-not-allowed, step-capabilities, no-plan.
Stories that passed are not linted.

Exit codes:
  0  no warnings   1  warnings found, or the PRD is invalid
  2  usage error`,
    )
    .action(async (file: string, options) => {
      const { lintCommand } = await import("../commands/prd/lint.js");
      setExit(await lintCommand(file, flags<LintOptions>()(options), output));
    });
};
