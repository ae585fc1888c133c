import {
  MeshflowError,
  type ModelClaim,
  type ScriptedCall,
  type StepCallOptions,
  StepNumberSchema,
  type StepOutcome,
  type Story,
  type ToolDescriptor,
  type ToolResult,
  type UniversalTool,
  UniversalToolSchema,
  type VerifyCommand,
} from "@meshflow/core";
import type { SpecialistInfo } from "@meshflow/resolver";
import { z } from "zod";
import type { RunMemory } from "../workflow/RunMemory.js";
import type { ConsultAnswer, ConsultationInfo, ConsultOptions } from "./Consultation.js";
import type { ConfigSchema, SpecialistConfig } from "./specialistConfig.js";
import { checkConfig } from "./specialistConfig.js";

/** What the runtime knows about a specialist besides its code: the resolver's `SpecialistInfo`. */
export type { SpecialistInfo } from "@meshflow/resolver";

export type { StepMemory } from "../workflow/RunMemory.js";

/** Where a specialist writes notes; they land in the run's log, never on stdout. */
export interface SpecialistLog {
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  /**
   * A learning worth keeping for later stories (a convention found, a pitfall met): it goes into the
   * PRD's progress log and the run store's story memory, and later steps see it in `ctx.memory.learnings`.
   */
  learn(text: string, data?: Record<string, unknown>): void;
}

/** What a specialist may ask of the step's model (`ctx.model`). */
export interface WorkOptions {
  /** Added to the task message: what the specialist wants on top of the step (e.g. "fix the findings below"). */
  ask?: string;
}

/**
 * The model of a step, when one is configured (`--model`, the story's or PRD's `model`, `FLOW_MODEL`).
 * `work()` runs the model's tool loop over the step's repertoire and returns what the model claims;
 * the specialist's own checks decide the step's outcome.
 */
export interface SpecialistModel {
  /** `<provider>:<model-id>`. */
  readonly name: string;
  /** Lets the model do the step's work; every tool call goes through `ctx.call`. Never throws. */
  work(options?: WorkOptions): Promise<ModelClaim>;
}

/** Everything `think()` gets for one story step. `C` is the type of its settings (`ctx.config`). */
export interface ThinkContext<C extends SpecialistConfig = SpecialistConfig> {
  runId: string;
  story: Story;
  step: number;
  specialist: SpecialistInfo;
  /** The tools this step may use: the step's servers' tools, after skills and enrichers. */
  repertoire: readonly ToolDescriptor[];
  /** The story's scripted calls for this step (`calls.step<N>`), possibly empty. */
  scripted: readonly ScriptedCall[];
  /**
   * The folder the story's `verify` working directories are relative to (the PRD's), absolute; absent
   * where a specialist runs without a PRD file (a test harness). A tool whose paths are relative to
   * another root (a workspace server's) takes `resolve(prdDir, cwd)`.
   */
  prdDir?: string;
  /**
   * The specialist's settings for this step: its `config` with the story's `agentConfig.<name>` merged
   * over it, validated by its `configSchema` (an empty object when it has neither).
   */
  config: Readonly<C>;
  /** Capability ids of a tool (from the capability catalog), e.g. `["filesystem_read"]`; empty when unclassified. */
  capabilitiesOf(tool: string | ToolDescriptor): readonly string[];
  /** The repertoire's tools that have a capability, in repertoire order: find tools by what they do. */
  toolsWith(capability: string): ToolDescriptor[];
  /**
   * Calls a tool by any name the resolver knows. Never throws for tool problems: errors and refusals
   * (`tool_not_found`, `not_in_repertoire`, `outcome_unknown`, …) come back as results with `isError`.
   * `options.byContent` journals the call under its tool and arguments rather than its place in the step.
   */
  call(name: string, args?: Record<string, unknown>, options?: StepCallOptions): Promise<ToolResult>;
  /**
   * Tells the runtime that one of the story's `verify` commands passed through `result`, a result of a
   * `code_execute` call this step made with exactly the command's argv and cwd. The runtime checks
   * that claim (see the runtime README); when it holds and nothing is written after it in the story,
   * the completion gate reuses it instead of running the command again. Returns whether it was accepted.
   */
  verified(command: VerifyCommand, result: ToolResult): boolean;
  pass(summary: string, ...evidence: unknown[]): StepOutcome;
  fail(summary: string, ...evidence: unknown[]): StepOutcome;
  block(summary: string, ...evidence: unknown[]): StepOutcome;
  /**
   * What the run remembers: as an array, the outcomes of this story's earlier steps in order (also
   * `memory.steps`); `memory.stories`, the PRD's finished stories, and `memory.learnings`, the learnings
   * of this and related PRDs (`dependsOn`), both newest first and bounded.
   */
  memory: RunMemory;
  log: SpecialistLog;
  /** Aborted on Ctrl-C or when the run stops. */
  signal: AbortSignal;
  /** The step's model; undefined when no model is configured for the story. */
  model?: SpecialistModel;
  /**
   * Runs another specialist on the same story step as a sub-step, with its own repertoire (its
   * skills and enrichers over the step's servers), and returns its outcome and answer. Only the
   * specialists this one may consult (its `consults`, or the story's `consult` entry for it); at
   * most 2 deep, never back to a specialist already in the chain. Rejects
   * with `consult_refused`, `consult_cycle` or `consult_depth`, naming the specialists, story and step.
   * Model turns, tokens and time count against this step's budgets.
   */
  consult(specialist: string, question: string, options?: ConsultOptions): Promise<ConsultAnswer>;
  /** Set when this think() runs as a consultation: who asked what. */
  consultation?: ConsultationInfo;
}

/**
 * What a specialist can know of a step before it runs: its story, repertoire and settings, and no call.
 * The part of {@link ThinkContext} a run's start and `flow prd lint` give {@link SpecialistDefinition.verifyTool}.
 */
export type StepView<C extends SpecialistConfig = SpecialistConfig> = Pick<
  ThinkContext<C>,
  "story" | "step" | "specialist" | "repertoire" | "config" | "capabilitiesOf" | "toolsWith"
>;

/** What a specialist author writes. Without `think`, the specialist runs the story's scripted calls. */
export interface SpecialistDefinition<C extends SpecialistConfig = SpecialistConfig> extends SpecialistInfo {
  description: string;
  /**
   * Built-in tools it asks an agent harness for when exported (`flow export agents`), e.g.
   * `[UniversalTool.read, UniversalTool.edit]`; its MCP tools come from its repertoire. Runs ignore them.
   */
  harnessTools?: readonly UniversalTool[];
  /**
   * Default settings (data, usually read from a file beside the agent with `loadSpecialistConfig`).
   * A story's `agentConfig.<name>` is merged over them (objects deeply, arrays and values replaced).
   */
  config?: SpecialistConfig;
  /**
   * What the model is told this specialist is and how it works (its system prompt). Without it, an
   * `instructions.md` beside `agent.ts` is used, else the description.
   */
  instructions?: string;
  /**
   * Specialists this one may consult (`ctx.consult`, `consult_<name>` tools of its model); a story
   * overrides the list with `"consult": {"<this name>": [...]}`. Default: none.
   */
  consults?: readonly string[];
  /** Validates the merged settings (a zod schema fits); invalid settings block the step, naming the field. */
  configSchema?: ConfigSchema<C>;
  /**
   * `"calls-or-model"`: the specialist has no plan of its own, so a step the story gives neither scripted
   * calls nor a model is blocked; `flow validate` warns of such a step before a run. A specialist without
   * a think() works that way whatever this says.
   */
  needs?: "calls-or-model";
  /**
   * For a specialist whose think() runs the story's `verify` commands through a tool of its repertoire:
   * that tool for a step (the same choice think() makes), or why there is none. Before a run (its start,
   * `flow prd lint`) each command's executable is checked against the allowlist the tool states
   * (`"meshflow/allow"` in its `_meta`), so a command it would refuse is named before the step blocks.
   * A string, a tool that states no allowlist, or a function that throws: nothing is judged.
   */
  verifyTool?: (view: StepView<C>) => ToolDescriptor | string;
  think?: (ctx: ThinkContext<C>) => Promise<StepOutcome>;
}

const BRAND = Symbol.for("meshflow.specialist");

/** Only a type: the settings type a specialist was defined with, kept for {@link extendSpecialist}. */
declare const CONFIG: unique symbol;

/** A validated specialist, as `defineSpecialist` returns it; `C` is the type of its settings. */
export interface Specialist<C extends SpecialistConfig = SpecialistConfig> extends Readonly<SpecialistDefinition> {
  readonly [BRAND]: true;
  readonly [CONFIG]?: C;
}

const DefinitionSchema = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9-]*$/, "a specialist name is lower-case kebab-case"),
  description: z.string().min(1),
  steps: z.array(StepNumberSchema).optional(),
  skills: z.array(z.string().min(1)).optional(),
  readOnly: z.boolean().optional(),
  tools: z.array(z.string().min(1)).optional(),
  harnessTools: z.array(UniversalToolSchema).optional(),
  config: z.record(z.string(), z.unknown()).optional(),
  instructions: z.string().min(1).optional(),
  consults: z.array(z.string().regex(/^[a-z][a-z0-9-]*$/, "a specialist name is lower-case kebab-case")).optional(),
  configSchema: z
    .custom<ConfigSchema<SpecialistConfig>>(
      (v) => typeof (v as { safeParse?: unknown } | null)?.safeParse === "function",
      "configSchema must have a safeParse method (a zod schema)",
    )
    .optional(),
  needs: z.literal("calls-or-model").optional(),
  verifyTool: z
    .custom<SpecialistDefinition["verifyTool"]>((v) => typeof v === "function", "verifyTool must be a function")
    .optional(),
  think: z.custom<SpecialistDefinition["think"]>((v) => typeof v === "function", "think must be a function").optional(),
});

/**
 * Declares a specialist. Validates the definition; a bad one throws `specialist_invalid` naming the field.
 *
 * @example
 * export default defineSpecialist({
 *   name: "quality-agent",
 *   description: "runs the tests",
 *   steps: [5],
 *   async think(ctx) {
 *     const r = await ctx.call("run_tests", {});
 *     return r.isError ? ctx.fail("tests failed", r) : ctx.pass("tests green", r);
 *   },
 * });
 */
export function defineSpecialist<C extends SpecialistConfig = SpecialistConfig>(
  definition: SpecialistDefinition<C>,
): Specialist<C> {
  const parsed = DefinitionSchema.safeParse(definition);
  const name = typeof definition?.name === "string" ? ` "${definition.name}"` : "";
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(definition)"}: ${i.message}`);
    throw new MeshflowError("specialist_invalid", `invalid specialist${name}: ${issues.join("; ")}`, {
      details: { issues },
    });
  }
  // Default settings are checked once here, so a broken config file fails at load, not at a step.
  if (definition.configSchema) {
    const checked = checkConfig(definition.configSchema, definition.config ?? {});
    if (!checked.ok)
      throw new MeshflowError(
        "specialist_invalid",
        `invalid config of specialist${name}: ${checked.issues.join("; ")}`,
        {
          details: { issues: checked.issues },
        },
      );
  }
  // The generic parameter only types think()'s ctx.config; the runtime hands it the validated settings.
  return Object.freeze({ ...definition, [BRAND]: true as const }) as unknown as Specialist<C>;
}

/** True when `value` came from {@link defineSpecialist} (also across module instances). */
export function isSpecialist(value: unknown): value is Specialist {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

/** The data part of a specialist (no code), as the resolver and reports use it. */
export function specialistInfo(specialist: SpecialistInfo): SpecialistInfo {
  const { name, description, steps, skills, readOnly, tools } = specialist;
  return { name, description, steps, skills, readOnly, tools };
}
