import type { StepOutcome, StepStatus, TokenCount } from "@meshflow/core";
import type { CallEvidence } from "../CallEvidence.js";
import type { CallWrite } from "./toolCall.js";
import type { VerifiedCommand } from "./verifiedCommands.js";

/** A step ready to think: its specialist and repertoire. */
export interface PreparedStep {
  specialist: string;
  tools: number;
  /** Set when the step cannot run at all (unknown specialist, unreachable server). */
  blocked?: { summary: string; environment: boolean };
}

/** What one step produced. */
export interface StepResult {
  step: number;
  specialist: string;
  status: StepStatus;
  summary: string;
  calls: CallEvidence[];
  evidence: unknown[];
  /** True when the environment (an unreachable server) kept the step from running. */
  environment?: boolean;
  /**
   * Why the run must stop before its next story (a model endpoint or harness refused the key): the
   * step is not passed, and the run ends with the environment's exit code.
   */
  halt?: string;
  /** Tokens the step's model used (absent when no model thought). */
  tokens?: TokenCount;
  /** The story's verify commands this step ran through a code_execute call, as the runtime checked them. */
  verified?: VerifiedCommand[];
  /** The step's calls that may have written (see `CallLog.writes`); absent when none did. */
  writes?: CallWrite[];
  /** The consultations the step asked for (`ctx.consult`), in the order they ended; absent when none. */
  consults?: ConsultRecord[];
}

/** A consultation of a step, as its result and evidence keep it. */
export interface ConsultRecord {
  id: string;
  specialist: string;
  question: string;
  status: StepStatus;
  summary: string;
  calls: number;
}

const OUTCOME_STATUSES: ReadonlySet<string> = new Set(["passed", "failed", "blocked"]);

/** Whether what a think() returned is a StepOutcome. */
export function isOutcome(value: unknown): value is StepOutcome {
  const v = value as Partial<StepOutcome> | null;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.status === "string" &&
    OUTCOME_STATUSES.has(v.status) &&
    typeof v.summary === "string"
  );
}
