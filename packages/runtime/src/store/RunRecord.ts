import { z } from "zod";
import { ApprovalPolicySchema } from "../approvals/ApprovalPolicy.js";

/** Status of a run as its record says. `running` with a dead process shows as interrupted. */
const RunStatusSchema = z.enum(["running", "passed", "failed", "aborted"]);

/** The model settings a run was started with (`--model`, budgets, cassettes), for `flow resume`. */
const ModelSettingsSchema = z.strictObject({
  model: z.string().optional(),
  baseUrl: z.string().optional(),
  maxTurns: z.number().int().positive(),
  maxStepTokens: z.number().int().nonnegative(),
  stepTimeoutMs: z.number().int().nonnegative(),
  maxResultChars: z.number().int().positive(),
  /** `--max-step-cost` and `--max-run-cost` in US dollars (0: none; absent in runs from before them). */
  maxStepCostUsd: z.number().nonnegative().optional(),
  maxRunCostUsd: z.number().nonnegative().optional(),
  /** `--context-window` (0: the price table's) and `--context-share`. */
  contextWindow: z.number().int().nonnegative().optional(),
  contextShare: z.number().positive().max(1).optional(),
  /** `--max-retry-wait` in ms. */
  maxRetryWaitMs: z.number().int().nonnegative().optional(),
  /** `--parallel-reads`. */
  parallelReads: z.number().int().positive().optional(),
  /** Absolute path of the `--prices` file. */
  prices: z.string().optional(),
  /** Absolute path of the `--record` cassette. */
  record: z.string().optional(),
  /** Absolute path of the `--replay` cassette. */
  replay: z.string().optional(),
  /** `--harness`: the coding agent that works every step where a model would. */
  harness: z.string().optional(),
  /** `--harness-builtin-tools`: the harness's own tools stay on. */
  harnessBuiltinTools: z.boolean().optional(),
});

/** How a run was started: enough to resume it in another process. */
const RunOptionsSchema = z.strictObject({
  models: ModelSettingsSchema.optional(),
  mcpConfig: z.string().optional(),
  routing: z.string().optional(),
  agents: z.array(z.string()),
  stories: z.array(z.string()).optional(),
  failFast: z.boolean(),
  /** Stories at most in progress at once (`--parallel`); absent: one at a time. `flow resume` keeps it. */
  parallel: z.number().int().min(1).optional(),
  /**
   * Where stories side by side work (`--isolate`): `worktree`, a git worktree each, merged back one at a
   * time; `none`, the one working tree. Absent: `none`. `flow resume` keeps it.
   */
  isolate: z.enum(["worktree", "none"]).optional(),
  /** Which stories may run together (`--parallel-order`): `band` (default) or `deps`. */
  parallelOrder: z.enum(["band", "deps"]).optional(),
  /** The specialist a merge conflict is given to (`--resolve-conflicts`), if any. */
  resolveConflicts: z.string().optional(),
  skills: z.string().optional(),
  /** The run used the project's `agents` and `skills` over the built-in specialists and skills. */
  builtin: z.boolean().optional(),
  /** The guard's rate limit the run was started with (0 = none); `flow resume` uses it unless given. */
  callsPerMinute: z.number().int().min(0).optional(),
  /** What needs a person's approval (`--approve`, the approvals rules as they were): `flow resume` keeps it. */
  approvals: ApprovalPolicySchema.optional(),
  /** The PRD workflow's settings of the run (`flow run`), so `flow resume` keeps them. */
  workflow: z
    .strictObject({
      /** Commit each passed story. */
      commit: z.boolean().optional(),
      /** PRD files whose learnings the steps see (the PRD's `dependsOn`), absolute. */
      related: z.array(z.string()).optional(),
      /** The run whose failed stories this run re-runs (`--rerun-failed`). */
      rerunOf: z.string().optional(),
    })
    .optional(),
});

/** `run.json` of a run folder. */
export const RunRecordSchema = z.strictObject({
  runId: z.string(),
  /** Absolute path of the PRD file. */
  prd: z.string(),
  /** Digest of the PRD's stories without `passes`/`notes`: resume refuses a PRD whose work changed. */
  prdDigest: z.string(),
  /** Story ids in run order, the ones this run handles. */
  stories: z.array(z.string()),
  options: RunOptionsSchema,
  status: RunStatusSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Process that runs (or last ran) it. */
  pid: z.number().int(),
  counts: z.strictObject({
    passed: z.number().int(),
    failed: z.number().int(),
    blocked: z.number().int(),
    skipped: z.number().int(),
  }),
  /**
   * Passed stories whose `passes: true` the PRD did not hold when the run ended (saves kept dropping
   * them): `flow mark` (or `flow resume`) of the run writes them and clears this.
   */
  unmarked: z.array(z.string()).optional(),
  /**
   * The worktrees (`--isolate worktree`) the run kept when it ended, by story id: those of stories that
   * failed, were blocked (a merge conflict) or were still in progress. Merged ones are removed.
   */
  worktrees: z.record(z.string(), z.string()).optional(),
});

/** `run.json` of a run folder. */
export type RunRecord = z.infer<typeof RunRecordSchema>;
/** Options a run was started with. */
export type RunOptions = z.infer<typeof RunOptionsSchema>;
/** Status of a run record. */
export type RunStatus = z.infer<typeof RunStatusSchema>;
/** The model settings of a run. */
export type ModelSettings = z.infer<typeof ModelSettingsSchema>;
