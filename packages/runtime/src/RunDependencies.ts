import type {
  McpConfig,
  MeshflowError,
  ModelCatalog,
  ModelTextDelta,
  ModelWait,
  RoutingTable,
  RunEvent,
} from "@meshflow/core";
import type { ApprovalPolicy } from "./approvals/ApprovalPolicy.js";
import type { ConfirmDestructive } from "./ConfirmDestructive.js";
import type { RunCounts } from "./machine/chiefAnalyst.js";
import type { Unmarked } from "./session/PassMarks.js";
import type { Specialist } from "./specialists/defineSpecialist.js";
import type { RunOptions } from "./store/RunRecord.js";
import type { RunStore } from "./store/RunStore.js";
import type { ToolPlane } from "./ToolPlane.js";
import type { StoryHooks } from "./workflow/StoryHooks.js";
import type { StoryWorkspaces } from "./workflow/worktrees/StoryWorkspaces.js";

// The types of a run, apart from runSession.ts so that the session's parts can name them without
// importing the module that drives them.

/** What a run needs: tools, a store, specialists, routing and the MCP config. */
export interface RunDependencies {
  plane: ToolPlane;
  store: RunStore;
  specialists: ReadonlyMap<string, Specialist>;
  routing: RoutingTable;
  mcpConfig: McpConfig;
  /**
   * Every run event once it is stored, with what it reports (the machine's state, the journal): whoever
   * sees `step.finished` can count on a resume not running that step again. Events are handed over
   * together, at most `WRITE_WINDOW_MS` (10 ms) after they were emitted.
   */
  onEvent?: (event: RunEvent) => void;
  /**
   * Every run event as it is emitted, before it is stored and before the work it announces goes on (a
   * `tool.called` before the call is submitted): for traces, whose tool span must exist when the call
   * goes out. Nothing it sees is durable yet.
   */
  onEmitted?: (event: RunEvent) => void;
  /**
   * Told what the models say while their turns run, piece by piece, for a live view. Transient: no run
   * event, never stored, not replayed; given, model turns are streamed (absent, they are not).
   */
  onModelText?: (delta: ModelTextDelta) => void;
  /**
   * Told when a model request was refused for now (429 rate limited, 529 overloaded) and how long it
   * waits before the next try, for a live view. Transient like `onModelText`.
   */
  onModelWait?: (wait: ModelWait) => void;
  /**
   * Told, once the plan is made and before any story starts, what the run's user should know from the
   * outset (`--parallel n` running nothing side by side, and the flag that would; verify commands a
   * step's tool would refuse, and the MCP config change that would allow them). Absent: such notices
   * are among the summary's warnings at the end.
   */
  onNotice?: (message: string) => void;
  /** Asked before each call of a `destructiveHint` tool; without it such calls run (and are marked). */
  confirmDestructive?: ConfirmDestructive;
  /**
   * Which calls wait for a person's approval (`--approve`, the approvals rules) and how long this
   * process waits for a decision (`--wait-for-approval`, ms; `Infinity`: until decided; absent or 0:
   * the run pauses once every story in flight waits). Absent: no call needs approval.
   */
  approvals?: { policy: ApprovalPolicy; waitMs?: number };
  /** The run's models: stories with a model (`--model`, `model` fields, `FLOW_MODEL`) get `ctx.model`. */
  models?: ModelCatalog;
  /** The PRD workflow around each story (progress log, story memory, commits, re-runs). */
  hooks?: StoryHooks;
  /**
   * A workspace of its own per story (`--isolate worktree`): its steps' calls, `ctx.prdDir` and gate
   * work there, and a passed story lands in the run's branch (committed, merged, gated again).
   */
  workspaces?: StoryWorkspaces;
}

/** How a new run is started. */
export interface StartRunOptions {
  prdFile: string;
  /**
   * The PRD's folder as its author knows it, when `prdFile` is a copy kept elsewhere (a queued run's
   * copy in the worker's store): `verify` working directories and evidence paths are relative to it.
   * Default: the folder of `prdFile`.
   */
  prdDir?: string;
  runId?: string;
  /** Only these story ids. */
  stories?: string[];
  failFast?: boolean;
  /** Stories at most in progress at once (`flow run --parallel`); default 1, one after another. */
  parallel?: number;
  /** Recorded so `flow resume` can rebuild the same environment. */
  record: Omit<RunOptions, "failFast" | "stories" | "parallel">;
}

/** How a run ended. `refused`: it could not start (invalid PRD, unreachable server…), see `error`. */
export interface RunSummary {
  /** Problems that did not change outcomes but need a person (a PRD that could not be updated). */
  warnings: string[];
  runId: string | undefined;
  status: "passed" | "failed" | "aborted" | "refused";
  counts: RunCounts;
  /** An unreachable server blocked a step. */
  environment: boolean;
  /** Why the run stopped before its remaining stories (a refused key), when it did. */
  halt?: string;
  /**
   * What paused the run, when its guard locked (an emergency stop, the rate limit): it ended `aborted`,
   * resumable, with no story failed because of the lock.
   */
  paused?: RunPause;
  error?: MeshflowError;
  /** Passed stories the PRD was left without marks for: `flow mark <runId>` writes them. */
  unmarked?: Unmarked;
  /** The run's folder, for messages. */
  location?: string;
}

/**
 * Why a run paused: its guard locked, with the guard's reason (which says how to lift it), or every
 * story in flight waits for a person's approval (`approval_required`, with the calls that wait).
 */
export interface RunPause {
  code: "guard_locked" | "rate_limit_exceeded" | "approval_required";
  reason: string;
  /** The calls waiting for approval (`approval_required` only). */
  pending?: Array<{ key: string; storyId: string; tool: string; rule: string }>;
}

/** A run in progress. */
export interface RunSession {
  /**
   * Resolves when the run ends. Never rejects: an exception anywhere in the run (a machine action, a
   * specialist, an enricher, a store write, the PRD write-back) ends it `failed` with `error` set and
   * a `run.finished` event carrying the error.
   */
  readonly done: Promise<RunSummary>;
  /** The run id (known once the preflight has passed). */
  runId(): string | undefined;
  /** Stops cleanly: no new tool call starts, calls in flight finish and are journaled; resumable. */
  abort(): void;
}
