import { z } from "zod";
import { HarnessChoiceSchema } from "../model/HarnessName.js";
import { ModelNameSchema } from "../model/ModelName.js";
import { ModelPricesSchema } from "../model/prices/ModelPrice.js";

/** Lowest and highest step number of the PRD format. */
export const MIN_STEP = 1;
export const MAX_STEP = 11;

/** A step number, 1–11. */
export const StepNumberSchema = z
  .number()
  .int()
  .min(MIN_STEP)
  .max(MAX_STEP)
  .describe("A step of the flow, 1–11; the routing table says which specialist runs it.");

/** A shell-free command of the completion gate: argv, never a shell string. */
const VerifyCommandSchema = z
  .strictObject({
    run: z
      .array(z.string().min(1))
      .min(1)
      .describe('The executable and its arguments, e.g. ["npm", "test"]. Run with execFile, never a shell.'),
    cwd: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Working directory, relative to the PRD's folder; it must stay inside the project (its git repository, else the folder holding .mcp.json).",
      ),
    name: z.string().min(1).optional().describe("A label for reports."),
    timeoutMs: z.number().int().positive().optional().describe("Kill the command after this many milliseconds."),
  })
  .describe("A command the completion gate runs after every step of the story passed.");

/** One tool call a story declares for a step; a specialist without its own plan executes these in order. */
const ScriptedCallSchema = z
  .strictObject({
    tool: z.string().min(1).describe("Tool name: qualified (`server__tool`), bare, or any name the resolver knows."),
    args: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("Arguments, validated against the tool's input schema."),
  })
  .describe("A scripted tool call.");

/** Per-step entries keyed `step<N>`; the keys are checked against `mavenSteps` by the validator. */
const stepKeyed = <T extends z.ZodType>(value: T) => z.record(z.string(), value);

/** One user story of a PRD. Unknown fields are kept as they are. */
export const StorySchema = z
  .looseObject({
    id: z.string().min(1).describe("Unique story id, e.g. US-001."),
    title: z.string().min(1),
    description: z.string().default(""),
    acceptanceCriteria: z.array(z.string()).default([]),
    mavenSteps: z.array(StepNumberSchema).min(1).describe("The steps to run, in this order."),
    mcpTools: stepKeyed(z.array(z.string().min(1)))
      .default({})
      .describe('MCP servers per step, e.g. {"step1": ["filesystem"]}: names of servers in the MCP config.'),
    calls: stepKeyed(z.array(ScriptedCallSchema))
      .optional()
      .describe('Scripted tool calls per step, e.g. {"step7": [{"tool": "memory__read_graph"}]}.'),
    verify: z.array(VerifyCommandSchema).optional().describe("Completion-gate commands."),
    agentConfig: z
      .record(z.string(), z.record(z.string(), z.unknown()))
      .optional()
      .describe(
        'Settings per specialist, keyed by its name, merged over the specialist\'s own config, e.g. {"refactor-agent": {"maxLines": 300}}.',
      ),
    model: ModelNameSchema.optional(),
    harness: HarnessChoiceSchema.optional(),
    consult: z
      .record(z.string(), z.array(z.string().min(1)))
      .optional()
      .describe(
        'Which specialists each specialist may consult in this story, replacing its own `consults`, e.g. {"development-agent": ["security-agent"]}.',
      ),
    dependsOn: z
      .array(z.string().min(1))
      .optional()
      .describe(
        "Ids of stories of this PRD that must finish before this one starts (`flow run --parallel` runs stories side by side otherwise).",
      ),
    priority: z.number().int().min(0).describe("Lower runs first; ties keep file order."),
    passes: z.boolean().default(false).describe("Written true only by the completion gate."),
    notes: z.string().default(""),
  })
  .describe("A user story.");

/** What a run does with git for a PRD. */
export const PrdGitSchema = z
  .strictObject({
    commit: z
      .boolean()
      .optional()
      .describe(
        "Commit each story that passed its gate (only the files its steps changed), as `flow run --commit` does.",
      ),
  })
  .describe("Git settings of the PRD's runs.");

/** A PRD: a project and its user stories. Unknown fields are kept as they are. */
export const PrdSchema = z
  .looseObject({
    $schema: z.string().optional(),
    project: z.string().min(1),
    branchName: z.string().min(1).optional(),
    description: z.string().default(""),
    model: ModelNameSchema.optional().describe(
      "The model for every story without its own `model`, `<provider>:<model-id>`; `--model` overrides both.",
    ),
    harness: HarnessChoiceSchema.optional(),
    prices: ModelPricesSchema.optional(),
    dependsOn: z
      .array(z.string().min(1))
      .optional()
      .describe(
        'PRD files (relative to this one\'s folder, e.g. ["prd-auth.json"]) that `flow run <folder>` runs first; this PRD waits until every story of them passed.',
      ),
    git: PrdGitSchema.optional(),
    userStories: z.array(StorySchema),
  })
  .describe("A meshflow PRD: user stories whose steps are routed to specialist agents.");

/** A story as loaded (defaults applied, unknown fields kept). */
export type Story = z.infer<typeof StorySchema>;
/** A PRD as loaded (defaults applied, unknown fields kept). */
export type Prd = z.infer<typeof PrdSchema>;
/** A completion-gate command. */
export type VerifyCommand = z.infer<typeof VerifyCommandSchema>;
/** A scripted tool call. */
export type ScriptedCall = z.infer<typeof ScriptedCallSchema>;

/** The key of a step in `mcpTools` / `calls`. */
export function stepKey(step: number): `step${number}` {
  return `step${step}`;
}

/** Parses `step<N>` into N, or undefined when the key has another shape. */
export function parseStepKey(key: string): number | undefined {
  const m = /^step([1-9]\d*)$/.exec(key);
  return m ? Number(m[1]) : undefined;
}
