import type { ErrorCode, ToolAnnotations, ToolResult } from "@meshflow/core";
import { type CallContext, type DescribeTool, refusal, type ToolHandler } from "@meshflow/mcp";
import type { Job } from "bullmq";
import { type CallJobData, CallJobDataSchema } from "../callJob.js";
import type { JobTracing } from "../JobTracing.js";
import type { QueueSettings } from "../QueueSettings.js";
import { parseEntry, type StoredEntry } from "./journalEntry.js";
import type { RedisAdapter } from "./RedisAdapter.js";

/** Failures after which nobody knows whether the tool did its work. */
const UNKNOWN_EFFECT: ReadonlySet<ErrorCode> = new Set<ErrorCode>(["server_crashed", "call_timeout"]);
/** Failures before the call reached the server. */
const NOT_SENT: ReadonlySet<ErrorCode> = new Set<ErrorCode>(["server_unreachable", "connect_timeout"]);

/** Thrown for an idempotent or read-only call worth another attempt: BullMQ retries it with backoff. */
class RetryableCallError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RetryableCallError";
  }
}

/** Thrown when the worker no longer holds the call's job: it must not run or record it. */
class LostJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LostJobError";
  }
}

/** What a {@link CallProcessor} runs calls with. */
export interface CallProcessorDeps {
  adapter: RedisAdapter;
  settings: QueueSettings;
  chain: ToolHandler;
  describe: DescribeTool;
  /** The BullMQ lock key of a job id. */
  lockKey(jobId: string): string;
  worker: string;
  /** Runs each job in a span of the queuing run's trace. */
  tracing?: Pick<JobTracing, "callJob">;
}

function isSafe(annotations: ToolAnnotations): boolean {
  return annotations.idempotentHint === true || annotations.readOnlyHint === true;
}

/**
 * The work of one tool-call job on a worker: claim the call in the journal (fenced by the job lock),
 * run it through the middleware chain, record its result (fenced by the claim's token), and hand the
 * recorded result back as the job's return value.
 */
export class CallProcessor {
  readonly #deps: CallProcessorDeps;

  constructor(deps: CallProcessorDeps) {
    this.#deps = deps;
  }

  async #annotations(tool: string): Promise<ToolAnnotations> {
    try {
      return (await this.#deps.describe(tool)).annotations;
    } catch {
      // An unknown tool: the chain refuses it with the reason; nothing will run.
      return {};
    }
  }

  async process(job: Job, token: string | undefined): Promise<ToolResult> {
    const parsed = CallJobDataSchema.safeParse(job.data);
    if (!parsed.success)
      return refusal("tool_error", `job ${job.id} is not a tool call: ${parsed.error.issues[0]?.message ?? "invalid"}`);
    const data = parsed.data;
    const tracing = this.#deps.tracing;
    if (!tracing) return this.#process(job, token, data);
    const trace = { tool: data.tool, key: data.key, worker: this.#deps.worker, attempt: job.attemptsStarted };
    return tracing.callJob(data.traceparent ? { ...trace, traceparent: data.traceparent } : trace, () =>
      this.#process(job, token, data),
    );
  }

  async #process(job: Job, token: string | undefined, data: CallJobData): Promise<ToolResult> {
    if (!token || !job.id) throw new LostJobError(`job ${job.id} has no lock token`);
    const { adapter, settings } = this.#deps;
    const annotations = await this.#annotations(data.tool);
    const safe = isSafe(annotations);
    const lock = this.#deps.lockKey(job.id);
    const started: StoredEntry = {
      key: data.key,
      tool: data.tool,
      argsDigest: data.argsDigest,
      state: "started",
      startedAt: new Date().toISOString(),
      token,
      lock,
      worker: this.#deps.worker,
      attempt: job.attemptsStarted,
    };
    const claim = await adapter.claimCall({
      lockKey: lock,
      journal: data.journal,
      token,
      key: data.key,
      started: JSON.stringify(started),
      safe,
      tool: data.tool,
      argsDigest: data.argsDigest,
      ttlSeconds: settings.journalTtlSeconds,
    });
    const entry = parseEntry(claim.entry);
    switch (claim.verdict) {
      case "lost":
        throw new LostJobError(`${data.key}: this worker no longer holds the job; not run`);
      case "finished":
        if (entry?.result) return entry.result;
        return refusal("outcome_unknown", `${data.tool} (${data.key}): the journal has no readable result`);
      case "mismatch":
        return refusal(
          "outcome_unknown",
          `${data.key} was journaled for ${entry?.tool} (${entry?.argsDigest}), now ${data.tool} (${data.argsDigest}): ` +
            "the earlier call's outcome cannot stand for this one, and this one is not run",
        );
      case "unknown":
        return refusal(
          "outcome_unknown",
          `${data.tool} (${data.key}, args ${data.argsDigest}) was started by an earlier attempt ` +
            `(worker ${entry?.worker ?? "?"}) that did not record its result; the tool is neither idempotent ` +
            "nor read-only, so it is not run again: check the server's state",
        );
      case "run":
        return this.#run(job, token, data, started, safe);
      default:
        throw new Error(`claimCall answered ${String(claim.verdict)}`);
    }
  }

  async #run(job: Job, token: string, data: CallJobData, started: StoredEntry, safe: boolean): Promise<ToolResult> {
    const ctx: CallContext = {
      ...(data.repertoire ? { repertoire: new Set(data.repertoire) } : {}),
      ...(data.runId !== undefined ? { runId: data.runId } : {}),
      ...(data.storyId !== undefined ? { storyId: data.storyId } : {}),
      ...(data.step !== undefined ? { step: data.step } : {}),
      ...(data.annotationAware !== undefined ? { annotationAware: data.annotationAware } : {}),
      ...(data.confirmationToken !== undefined ? { confirmationToken: data.confirmationToken } : {}),
      ...(data.timeoutMs !== undefined ? { timeoutMs: data.timeoutMs } : {}),
    };
    const start = performance.now();
    let result: ToolResult;
    try {
      result = await this.#deps.chain(data.tool, data.args, ctx);
    } catch (error) {
      result = refusal("tool_error", `${data.tool}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const code = result.code;
    if (code !== undefined && (UNKNOWN_EFFECT.has(code) || NOT_SENT.has(code))) {
      const attemptsLeft = job.attemptsMade + 1 < (job.opts.attempts ?? 1);
      // Only a tool that may run twice is tried again; its "started" mark stays, which allows that.
      if (safe && attemptsLeft) throw new RetryableCallError(`${data.tool} (${data.key}): ${code}; retrying`);
      if (!safe && UNKNOWN_EFFECT.has(code))
        result = refusal(
          "outcome_unknown",
          `${data.tool} (${data.key}) failed with ${code} while it ran; the tool is neither idempotent nor ` +
            "read-only, so whether it did its work is unknown and it is not run again",
          { cause: code },
        );
    }
    const finished: StoredEntry = {
      ...started,
      state: "finished",
      finishedAt: new Date().toISOString(),
      durationMs: Math.round(performance.now() - start),
      result,
    };
    const commit = await this.#deps.adapter.commitCall({
      journal: data.journal,
      token,
      key: data.key,
      finished: JSON.stringify(finished),
      ttlSeconds: this.#deps.settings.journalTtlSeconds,
    });
    if (commit.verdict === "committed") return result;
    const standing = parseEntry(commit.entry);
    if (commit.verdict === "finished" && standing?.result) return standing.result;
    throw new LostJobError(`${data.key}: another attempt holds the call now; this attempt's result is not recorded`);
  }
}
