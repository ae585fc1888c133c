import type { ErrorCode } from "../errors/MeshflowError.js";
import type { ModelTurnReport } from "../model/StepModel.js";
import type { StepStatus } from "./types.js";

/** Tokens a model used, per step, story or run. */
export interface TokenCount {
  /** Every input token, those read from and written to the prompt cache included. */
  input: number;
  output: number;
  /** Input tokens read from the provider's prompt cache (absent when none). */
  cacheRead?: number;
  /** Input tokens written to the provider's prompt cache (absent when none). */
  cacheWrite?: number;
  turns: number;
  /** US dollars of the priced turns (the price table's, or a harness's own figure). */
  costUsd?: number;
  /** Turns whose cost is unknown (a model no price table knows): `costUsd`, if any, leaves them out. */
  unpricedTurns?: number;
}

/** Adds `c` into `sum` (the optional fields only when `c` has them). */
export function addTokens(sum: TokenCount, c: TokenCount): TokenCount {
  sum.input += c.input;
  sum.output += c.output;
  sum.turns += c.turns;
  if (c.cacheRead) sum.cacheRead = (sum.cacheRead ?? 0) + c.cacheRead;
  if (c.cacheWrite) sum.cacheWrite = (sum.cacheWrite ?? 0) + c.cacheWrite;
  if (c.costUsd !== undefined) sum.costUsd = (sum.costUsd ?? 0) + c.costUsd;
  if (c.unpricedTurns) sum.unpricedTurns = (sum.unpricedTurns ?? 0) + c.unpricedTurns;
  return sum;
}

/** A model turn's report (a `model.turn` event) as a token count of one turn, cache and cost included. */
export function turnTokens(e: Omit<ModelTurnReport, "replayed">): TokenCount {
  return {
    input: e.inputTokens,
    output: e.outputTokens,
    turns: 1,
    ...(e.cacheReadTokens ? { cacheRead: e.cacheReadTokens } : {}),
    ...(e.cacheWriteTokens ? { cacheWrite: e.cacheWriteTokens } : {}),
    ...(e.costUsd !== undefined ? { costUsd: e.costUsd } : {}),
    ...(e.costUnknown ? { unpricedTurns: 1 } : {}),
  };
}

/** The sum of token counts (a story's steps, a run's stories); undefined when none has a turn. */
export function sumTokens(counts: ReadonlyArray<TokenCount | undefined>): TokenCount | undefined {
  let sum: TokenCount | undefined;
  for (const c of counts) if (c?.turns) sum = addTokens(sum ?? { input: 0, output: 0, turns: 0 }, c);
  return sum;
}

/** Fields every run event has. */
export interface EventBase {
  /** ISO-8601 time the event was recorded. */
  time: string;
  runId: string;
}

/** Every event a run records, in `events.ndjson` and on `--json` output. */
export type RunEvent =
  | (EventBase & { type: "run.started"; prd: string; stories: string[] })
  | (EventBase & { type: "run.resumed"; prd: string; state: string })
  | (EventBase & { type: "story.started"; storyId: string })
  | (EventBase & { type: "step.started"; storyId: string; step: number; specialist: string; tools: number })
  /** A specialist consulted another on the step (`ctx.consult`); `consult` is the consultation's id. */
  | (EventBase & {
      type: "consult.started";
      storyId: string;
      step: number;
      consult: string;
      /** The consulted specialist. */
      specialist: string;
      /** The specialist that asked. */
      by: string;
      question: string;
      /** 1 for a step's consultation, 2 for a consultation's own. */
      depth: number;
    })
  | (EventBase & {
      type: "consult.done";
      storyId: string;
      step: number;
      consult: string;
      specialist: string;
      status: StepStatus;
      summary: string;
      /** Tool calls the consultation made. */
      calls: number;
      tokens?: TokenCount;
    })
  | (EventBase & {
      type: "tool.called";
      storyId: string;
      step: number;
      /** The consultation that made the call (absent for the step's own calls). */
      consult?: string;
      key: string;
      tool: string;
      argsDigest: string;
      destructive: boolean;
    })
  | (EventBase & {
      type: "tool.result";
      storyId: string;
      step: number;
      consult?: string;
      key: string;
      tool: string;
      isError: boolean;
      resultDigest: string;
      durationMs: number;
      /** True when the result came from the journal of an earlier attempt: the tool was not run again. */
      replayed?: boolean;
    })
  | (EventBase & {
      type: "tool.refused";
      storyId: string;
      step: number;
      consult?: string;
      key?: string;
      tool: string;
      code: ErrorCode;
      message: string;
      /** The refused tool is annotated `destructiveHint` (set when the tool was resolved). */
      destructive?: boolean;
    })
  /**
   * A call that needs a person's approval (`--approve`, the approvals rules) waits: its story is
   * `awaiting_approval` until `flow approve` decides it. Its arguments with secrets masked.
   */
  | (EventBase & {
      type: "approval.requested";
      storyId: string;
      step: number;
      consult?: string;
      key: string;
      tool: string;
      specialist: string;
      args: Record<string, unknown>;
      argsDigest: string;
      /** Why the call needs approval: the `--approve` mode or the rule that matched. */
      rule: string;
      /** Set when an earlier decision was for other arguments: it does not apply to these. */
      stale?: { argsDigest: string; by: string };
    })
  /** A decision about a call that waited (approved or denied), as the run applies it. */
  | (EventBase & {
      type: "approval.decided";
      storyId: string;
      step: number;
      consult?: string;
      key: string;
      tool: string;
      approved: boolean;
      /** Who decided and from where (`flow approve` by user@host, the console, flow serve). */
      by: string;
      reason?: string;
    })
  /** One model turn: the loop's report of it, on the step it belongs to (`replayed` only when true). */
  | (EventBase &
      Omit<ModelTurnReport, "replayed"> & {
        type: "model.turn";
        storyId: string;
        step: number;
        consult?: string;
        replayed?: boolean;
      })
  | (EventBase & {
      type: "step.finished";
      storyId: string;
      step: number;
      status: StepStatus;
      summary: string;
      /** Tool calls the step made (refusals included). */
      calls?: number;
      /** Tokens the step's model used (absent when no model thought). */
      tokens?: TokenCount;
    })
  | (EventBase & {
      type: "gate.finished";
      storyId: string;
      passed: boolean;
      commands: number;
      summary: string;
      /** The failing verify command's name and the last lines (at most 20) of its output (a failed gate only). */
      failed?: { command: string; tail: string };
    })
  | (EventBase & {
      type: "story.finished";
      storyId: string;
      status: StepStatus | "skipped";
      summary: string;
      /** Tokens the story's models used (absent when no model thought). */
      tokens?: TokenCount;
    })
  | (EventBase & {
      type: "run.finished";
      status: "passed" | "failed" | "aborted";
      passed: number;
      failed: number;
      blocked: number;
      /** Tokens the run's models used (absent when no model thought). */
      tokens?: TokenCount;
      /**
       * Why a run that had started ended `failed` without finishing its stories: an exception in the
       * runtime (a machine action, an enricher, a store write, the PRD write-back), never a crash.
       */
      error?: { code: ErrorCode; message: string };
    });

/** The `type` of a run event. */
export type RunEventType = RunEvent["type"];
