import type { Story } from "../prd/PrdSchema.js";
import type { StepStatus, ToolResult } from "../run/types.js";
import type { ToolDescriptor } from "../tools/ToolDescriptor.js";
import type { HarnessChoice } from "./HarnessName.js";
import type { ModelWait } from "./ModelWait.js";
import type { ModelPrice } from "./prices/ModelPrice.js";

/** Tokens and turns a model used. */
export interface ModelUsage {
  /** Every input token, those read from and written to the provider's prompt cache included. */
  inputTokens: number;
  outputTokens: number;
  /** Input tokens read from the provider's prompt cache (absent: none, or the provider did not say). */
  cacheReadTokens?: number;
  /** Input tokens written to the provider's prompt cache. */
  cacheWriteTokens?: number;
  turns: number;
  /** US dollars: from the price table (meshflow's loop) or as a harness reported; of the priced turns only. */
  costUsd?: number;
  /** Turns whose cost is unknown (a model no price table knows): `costUsd` leaves them out. */
  unpricedTurns?: number;
}

/** An earlier step of the story, as the model is told about it. */
export interface EarlierStep {
  step: number;
  specialist: string;
  status: StepStatus;
  summary: string;
}

/** A finished story of the PRD (or a related PRD), as the model is told about it. */
export interface RecalledStory {
  /** The PRD file name it belongs to. */
  prd: string;
  storyId: string;
  title: string;
  status: StepStatus;
  summary: string;
}

/** A learning a specialist noted in an earlier story (`ctx.log.learn`). */
export interface RecalledLearning {
  prd: string;
  storyId: string;
  text: string;
}

/** What a model is asked to do for one story step. */
export interface ModelTask {
  runId: string;
  storyId: string;
  step: number;
  specialist: string;
  /** The specialist's instructions (its `instructions` field or `instructions.md`, else its description). */
  instructions: string;
  /** What the step of the flow is for (e.g. "Data layer: …"). */
  stepPurpose: string;
  story: Pick<Story, "id" | "title" | "description" | "acceptanceCriteria" | "notes">;
  /** Outcomes of the story's earlier steps. */
  earlier: readonly EarlierStep[];
  /** Finished stories of this PRD, newest first (bounded); absent or empty when there are none. */
  finished?: readonly RecalledStory[];
  /** Learnings of this PRD's and related PRDs' stories, newest first (bounded). */
  learnings?: readonly RecalledLearning[];
  /** The step's repertoire: the only tools offered (besides the finishing tools). */
  tools: readonly ToolDescriptor[];
  /** What the specialist asks on top of the step (optional). */
  ask?: string;
}

/** One tool call of a model turn. */
export interface ModelToolCall {
  id: string;
  /** The name the model used (a sanitised qualified name, or a finishing tool). */
  name: string;
  input: Record<string, unknown>;
  /** The provider could not parse the input (it is reported back to the model). */
  invalid?: string;
}

/** What a model answered in one turn: the part that is journaled and recorded. */
export interface ModelResponse {
  text: string;
  toolCalls: ModelToolCall[];
  /** Input tokens count every token sent, those read from or written to the prompt cache included. */
  usage: { inputTokens: number; outputTokens: number; cacheReadTokens?: number; cacheWriteTokens?: number };
  finishReason: string;
  /** What the provider warned about (an unsupported setting, an unknown model). */
  warnings?: string[];
}

/** A turn as journaled: the digest of the request it answered and the response. */
export interface RecordedTurn {
  /** Which model answered (`<provider>:<model-id>`). */
  model: string;
  requestDigest: string;
  response: ModelResponse;
  latencyMs: number;
  /** The harness's own session the turn belongs to (a harness turn), so a resume can continue it. */
  session?: string;
}

/** The journal of one step's model turns, numbered from 1. A recorded turn is replayed, never asked again. */
export interface TurnJournal {
  get(turn: number): Promise<RecordedTurn | undefined>;
  /** Durable when it resolves; called before any of the turn's tool calls runs. */
  record(turn: number, recorded: RecordedTurn): Promise<void>;
}

/** One model turn, as reported for the `model.turn` event. */
export interface ModelTurnReport {
  /** Turn number within the step, from 1. */
  turn: number;
  provider: string;
  model: string;
  /** Every input token, those read from and written to the prompt cache included. */
  inputTokens: number;
  outputTokens: number;
  /** Input tokens read from the provider's prompt cache (absent when none). */
  cacheReadTokens?: number;
  /** Input tokens written to the provider's prompt cache (absent when none). */
  cacheWriteTokens?: number;
  latencyMs: number;
  /** Names of the tools the model called in this turn (finishing tools included). */
  toolCalls: string[];
  /** Answered from the run's journal or a cassette, not by the model now. */
  replayed: boolean;
  /** What the model or harness said in the turn, shortened (absent when it said nothing). */
  text?: string;
  /** The harness's session id (a harness turn). */
  session?: string;
  /** What the turn cost in US dollars: from the price table, or as the harness reports it. */
  costUsd?: number;
  /** The model is in no price table: the turn's cost is unknown (never counted as 0). */
  costUnknown?: boolean;
  /** Tool results of earlier turns the context budget replaced by a marker before this turn's request. */
  trimmedResults?: number;
}

/**
 * What a step's model loops have used so far. A step and the consultations it asks for share one:
 * every loop counts its turns and tokens into it and checks its budgets against it.
 */
export interface BudgetSpent {
  turns: number;
  tokens: number;
  /** US dollars of the priced turns so far (`--max-step-cost`). */
  costUsd?: number;
  /** `Date.now()` past which no loop of the step starts a turn (set by the first loop, from `--step-timeout`). */
  deadline?: number;
}

/** How one call of a step's model or harness is journaled. */
export interface StepCallOptions {
  /**
   * Key the call by its tool and arguments (the nth such call of the step) instead of its place in
   * the step: a harness restarted by a resume may ask again in another order, and a call the journal
   * holds as finished is then answered from it, never run twice.
   */
  byContent?: boolean;
  /**
   * With `byContent`: a call an earlier attempt made, answered again (from the journal) in the order
   * it was made, counted apart from this attempt's own calls, which go on from the first.
   */
  again?: boolean;
}

/** What the loop may do for a step: call tools (through the runtime), journal turns, report them. */
export interface ModelStepIO {
  /** `ctx.call`: resolver, middleware, executor, journal. Never throws. */
  call(name: string, args: Record<string, unknown>, options?: StepCallOptions): Promise<ToolResult>;
  turns: TurnJournal;
  onTurn(report: ModelTurnReport): void;
  /**
   * Told the model's text while a turn runs, as it arrives: the turn's number, the new piece and the
   * turn's text so far (which starts again when a failed request is retried). Absent: nobody watches,
   * and the turns are asked for without streaming.
   */
  onText?(turn: number, delta: string, text: string): void;
  /** A note for the run's log (provider warnings). */
  log?(message: string, data?: Record<string, unknown>): void;
  /** Aborted when the run stops. */
  signal: AbortSignal;
  /**
   * The folder the step works in when its story has one of its own (its git worktree, `--isolate
   * worktree`): a coding agent's program starts there and its changes are read there. Absent: the project.
   */
  workDir?: string;
  /** The budget this loop shares with the step that consulted it (absent: a budget of its own). */
  spent?: BudgetSpent;
  /** What the run's models have cost so far, shared by every step of the run (`--max-run-cost`). */
  runSpent?: RunSpent;
  /** Told when a request is refused for now (429, 529) and how long the loop waits: a live view's note. */
  onWait?(turn: number, wait: Pick<ModelWait, "status" | "waitMs" | "retryAfter" | "attempt">): void;
  /** The PRD's `prices`, over the run's price table. */
  prices?: Readonly<Record<string, ModelPrice>>;
  /**
   * Asks the run's approvals about a call of a coding agent's own tool (Claude Code's
   * `--permission-prompt-tool`) as one of meshflow's own calls (`<program>__<Tool>`): a call the
   * approvals ask about waits for a person's decision, any other is allowed at once. Absent: the run
   * asks for no approvals and the program's own permission rules stand.
   */
  approveOwnTool?(
    program: string,
    tool: string,
    input: Record<string, unknown>,
  ): Promise<{ allow: true } | { allow: false; reason: string }>;
}

/** What a run's models have cost so far (every step, every consultation), for `--max-run-cost`. */
export interface RunSpent {
  /** US dollars of the priced turns. */
  costUsd: number;
}

/** Why a model step ended without the model's own finishing call. */
export type ModelStopCode =
  | "model_no_outcome"
  | "budget_exhausted"
  | "replay_mismatch"
  | "model_error"
  | "aborted"
  /** The model endpoint or the harness refused the key (401/403): the run ends before its next story. */
  | "auth_failed"
  /** The harness program exited with an error or crashed. */
  | "harness_failed";

/** What the model claims about a step. A claim, not a verdict: the specialist's checks and the gate decide. */
export interface ModelClaim {
  status: StepStatus;
  summary: string;
  /** The finishing tool the model called. */
  finish?: "step_pass" | "step_fail" | "step_block";
  /** Set when the loop ended the step itself. */
  code?: ModelStopCode;
  usage: ModelUsage;
  /** Tool calls the model made (finishing tools not counted), with whether each failed. */
  calls: Array<{ tool: string; isError: boolean; code?: string }>;
  /** Set when a harness (a coding-agent program) worked the step: what the evidence records of it. */
  harness?: HarnessReport;
}

/** What a step's evidence records of the harness that worked it. */
export interface HarnessReport {
  /** `claude-code`, `opencode`, `codex`. */
  name: string;
  /** Its session id, when it said. */
  session?: string;
  /** `--harness-builtin-tools`: its own tools were on, so it may have changed files outside meshflow. */
  builtinTools: boolean;
  /** What it cost in US dollars, when it said. */
  costUsd?: number;
  /** With its own tools on, in a git repository: the working tree's changes after the step (bounded). */
  diff?: string;
}

/** The size of what a model is sent on a step's first turn (`flow run --dry-run`). */
export interface ModelRequestSize {
  /** Bytes of the instructions and the task message. */
  promptBytes: number;
  /** Bytes of the tool definitions (repertoire and finishing tools). */
  toolBytes: number;
  tools: number;
}

/** A model the runtime can hand a step to (implemented by `@meshflow/model`). */
export interface StepModel {
  /** `<provider>:<model-id>`. */
  readonly name: string;
  run(task: ModelTask, io: ModelStepIO): Promise<ModelClaim>;
  size(task: ModelTask): ModelRequestSize;
}

/** The models of a run, by name; the host (the CLI) decides providers, keys, budgets and cassettes. */
export interface ModelCatalog {
  /** The model name for a story (`--model`, the story's, the PRD's, `FLOW_MODEL`), or undefined. */
  nameFor(story: Pick<Story, "id" | "model">, prdModel: string | undefined): string | undefined;
  /**
   * The harness that works a specialist's steps of a story whose own and PRD's `harness` are `choice`
   * (`--harness` wins), or undefined: meshflow's model loop. Absent: the catalog has no harnesses.
   */
  harnessFor?(choice: { story?: HarnessChoice; prd?: HarnessChoice }, specialist: string): string | undefined;
  /** The model of a name from {@link nameFor}; with a harness, that harness thinking with the model (if named). */
  get(name: string | undefined, harness?: string): StepModel;
  /**
   * Before the first story: every named model has its key and endpoint (throws `model_unavailable`),
   * every named harness is known (`usage`) and its program installed (`dependency_missing`).
   */
  check(names: readonly string[], harnesses?: readonly string[]): Promise<void>;
}
