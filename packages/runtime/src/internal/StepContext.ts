import type {
  BudgetSpent,
  ScriptedCall,
  StepCallOptions,
  StepOutcome,
  Story,
  ToolDescriptor,
  ToolResult,
  VerifyCommand,
} from "@meshflow/core";
import type { ConsultAnswer, ConsultationInfo, ConsultOptions } from "../specialists/Consultation.js";
import type {
  SpecialistInfo,
  SpecialistLog,
  SpecialistModel,
  StepMemory,
  ThinkContext,
} from "../specialists/defineSpecialist.js";
import type { SpecialistConfig } from "../specialists/specialistConfig.js";
import { type RunMemory, runMemory } from "../workflow/RunMemory.js";
import { type CallLog, type CallScope, callTool } from "./toolCall.js";
import { checkVerified, type VerifiedCommand } from "./verifiedCommands.js";

/** What a {@link StepContext} is built from. */
export interface StepContextInit {
  scope: CallScope;
  log: CallLog;
  story: Story;
  specialist: SpecialistInfo;
  scripted: readonly ScriptedCall[];
  /** See {@link ThinkContext.prdDir}. */
  prdDir?: string;
  config: SpecialistConfig;
  memory: readonly StepMemory[];
  notes: SpecialistLog;
  track(call: Promise<ToolResult>): void;
  /** `ctx.consult`. */
  consult(specialist: string, question: string, options?: ConsultOptions): Promise<ConsultAnswer>;
  /** Set when the think() runs as a consultation. */
  consultation?: ConsultationInfo;
  /** The model budget the step's loops and its consultations share. */
  spent: BudgetSpent;
  /** Builds the step's model for this context, when one is configured. */
  model?: (ctx: StepContext) => SpecialistModel;
}

/**
 * The `ctx` a think() gets. A class rather than an object of closures: one is made per step, and
 * large runs make many steps.
 */
export class StepContext implements ThinkContext {
  readonly runId: string;
  readonly story: Story;
  readonly step: number;
  readonly specialist: SpecialistInfo;
  readonly repertoire: readonly ToolDescriptor[];
  readonly scripted: readonly ScriptedCall[];
  readonly prdDir?: string;
  readonly config: Readonly<SpecialistConfig>;
  readonly memory: RunMemory;
  readonly log: SpecialistLog;
  readonly signal: AbortSignal;
  readonly model?: SpecialistModel;
  readonly consultation?: ConsultationInfo;
  /** The model budget of the step: every `model.work()` of it and of the consultations it asks for counts into it. */
  readonly spent: BudgetSpent;
  /** The story's verify commands this step ran and the runtime accepted (see {@link verified}). */
  readonly verifiedCommands: VerifiedCommand[] = [];
  readonly #init: StepContextInit;

  constructor(init: StepContextInit) {
    this.#init = init;
    this.runId = init.scope.runId;
    this.story = init.story;
    this.step = init.scope.step;
    this.specialist = init.specialist;
    this.repertoire = init.scope.repertoire;
    this.scripted = init.scripted;
    if (init.prdDir !== undefined) this.prdDir = init.prdDir;
    this.config = init.config;
    this.memory = runMemory(init.memory);
    this.log = init.notes;
    this.signal = init.scope.signal;
    this.spent = init.spent;
    if (init.consultation) this.consultation = init.consultation;
    this.consult = init.consult;
    // Specialists may pass these around detached (`const { call } = ctx`).
    this.call = this.call.bind(this);
    this.pass = this.pass.bind(this);
    this.fail = this.fail.bind(this);
    this.block = this.block.bind(this);
    this.verified = this.verified.bind(this);
    this.capabilitiesOf = this.capabilitiesOf.bind(this);
    this.toolsWith = this.toolsWith.bind(this);
    if (init.model) this.model = init.model(this);
  }

  readonly consult: (specialist: string, question: string, options?: ConsultOptions) => Promise<ConsultAnswer>;

  capabilitiesOf(tool: string | ToolDescriptor): readonly string[] {
    const name = typeof tool === "string" ? tool : tool.qualifiedName;
    return this.#init.scope.plane.capabilities?.(name) ?? [];
  }

  toolsWith(capability: string): ToolDescriptor[] {
    return this.repertoire.filter((t) => this.capabilitiesOf(t).includes(capability));
  }

  call(name: string, args: Record<string, unknown> = {}, options?: StepCallOptions): Promise<ToolResult> {
    const pending = callTool(this.#init.scope, this.#init.log, name, args, options);
    this.#init.track(pending);
    return pending;
  }

  verified(command: VerifyCommand, result: ToolResult): boolean {
    const { log } = this.#init;
    const checked = log.produced
      ? checkVerified(this.story, command, result, log.produced, (tool) => this.capabilitiesOf(tool), this.prdDir)
      : "this step keeps no record of its results";
    if (typeof checked === "string") {
      this.log.info(`verify "${command.name ?? command.run.join(" ")}" not recorded as verified: ${checked}`);
      return false;
    }
    this.verifiedCommands.push(checked);
    return true;
  }

  pass(summary: string, ...evidence: unknown[]): StepOutcome {
    return { status: "passed", summary, evidence };
  }

  fail(summary: string, ...evidence: unknown[]): StepOutcome {
    return { status: "failed", summary, evidence };
  }

  block(summary: string, ...evidence: unknown[]): StepOutcome {
    return { status: "blocked", summary, evidence };
  }
}
