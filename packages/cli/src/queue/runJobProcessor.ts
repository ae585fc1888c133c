import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join, normalize, resolve } from "node:path";
import { processAlive } from "@meshflow/core";
import {
  type QueueSettings,
  RedisApprovalLines,
  RedisCallJournal,
  type RedisClient,
  type RunJobContext,
  type RunJobOutcome,
  type RunJobProcessor,
} from "@meshflow/queue";
import {
  type ApprovalBook,
  approvalBookOver,
  approvalLedger,
  approvalPolicyOf,
  type RunEnvironment,
  startRun,
  workflowFor,
} from "@meshflow/runtime/host";
import type { Tracing } from "@meshflow/telemetry";
import { QueuedRunStore } from "./QueuedRunStore.js";
import { StoryTracker } from "./StoryTracker.js";

/** What a worker runs queued PRDs with: its own run environment, project checkout and Redis. */
export interface WorkerRunEnvironment {
  /**
   * The worker's MCP config, specialists, skills and local run store (events, evidence, logs of the
   * runs it ran), with tools over the worker's client pool and the queue as executor; a job's models
   * are its `--model` from `flow enqueue`, else the worker's settings.
   */
  environment: RunEnvironment;
  /** The project checkout queued PRDs run in (absolute). */
  workdir: string;
  redis: RedisClient;
  settings: QueueSettings;
  /** Spans of each run, children of the span that queued it (when traces are exported). */
  tracing?: Pick<Tracing, "runSink">;
}

/**
 * The folder a queued PRD runs in on this worker: the enqueuer's folder of the PRD (its `placement`)
 * under the worker's working directory, so `verify` commands run in the same part of the project; the
 * working directory itself when that folder does not exist here.
 */
export function queuedPrdFolder(workdir: string, placement: string): string {
  const relative = placement ? normalize(dirname(placement)) : ".";
  if (isAbsolute(relative) || relative.startsWith("..")) return workdir;
  const folder = resolve(workdir, relative);
  try {
    if (statSync(folder).isDirectory()) return folder;
  } catch {
    // not in this checkout
  }
  return workdir;
}

/**
 * The PRD a queued run works for, as the project on this worker knows it: the enqueuer's file name in
 * {@link queuedPrdFolder}. Its progress log is written beside it, its story memory kept under its path,
 * and with `"git": {"commit": true}` its stories are committed to that folder's repository — as a
 * `flow run` of it there would. The run itself reads the copy in the worker's store.
 */
function queuedProjectPrd(workdir: string, placement: string, file: string): string {
  return join(queuedPrdFolder(workdir, placement), basename(placement || file));
}

/** The folder of a worker's store that holds the PRD copies of the runs it is running. */
export const queuedCopiesDir = (storeRoot: string) => join(storeRoot, "queued");

/**
 * Where a queued PRD's copy is kept while it runs: in the worker's own store, never in the workspace
 * the run works on (a workspace scan must not see it), named after the worker's pid and the execution.
 */
export function queuedPrdPath(storeRoot: string, executionId: string, pid = process.pid): string {
  return join(queuedCopiesDir(storeRoot), `${pid}-${executionId}.json`);
}

/**
 * Removes the PRD copies a killed worker left in the store (those of a pid that no longer runs; live
 * workers sharing the store keep theirs). Returns the files removed.
 */
export function sweepQueuedCopies(storeRoot: string): string[] {
  const dir = queuedCopiesDir(storeRoot);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    // `<pid>-<id>.json`, and the run's PRD lock beside it, `.<pid>-<id>.json.lock`.
    const pid = Number(/^\.?(\d+)-/.exec(name)?.[1]);
    if (pid === process.pid || (pid && processAlive(pid))) continue;
    rmSync(join(dir, name), { force: true });
    removed.push(name);
  }
  return removed;
}

/**
 * The run-job processor of `flow worker`. `@meshflow/queue` cannot import the runtime (it sits below
 * it), so the CLI, which has both, supplies this: it keeps the job's PRD content in the worker's store
 * (never in the workspace), runs it in the PRD's folder under the worker's working directory with `startRun` (the same chief-analyst machine as `flow run`) under the
 * job's execution id, with the run's Redis journal as call journal, and mirrors story reports onto
 * the run board as they happen. A later attempt (another worker, after this one died or stopped)
 * starts over under the same id: every call this attempt recorded replays from the journal.
 */
export function createRunJobProcessor(env: WorkerRunEnvironment): RunJobProcessor {
  return async (ctx: RunJobContext): Promise<RunJobOutcome> => {
    const { data, signal, board, worker } = ctx;
    const { environment } = env;
    const policy = data.approvals ? approvalPolicyOf(data.approvals, `queued run ${data.runId}: approvals`) : undefined;
    const approvals = policy ? queuedApprovals(env, data.runId) : undefined;
    // Calls of this job that wait for a person: nothing to do until they are decided.
    const waiting = approvals ? await waitingCalls(approvals, data.executionId) : undefined;
    if (waiting) return { status: "awaiting_approval", waiting, counts: noCounts(), stories: [] };
    const prdFile = queuedPrdPath(environment.store.root, data.executionId);
    mkdirSync(dirname(prdFile), { recursive: true });
    writeFileSync(prdFile, data.prdText);
    const tracker = new StoryTracker(board, data.runId, worker);
    const trace = env.tracing?.runSink({ prd: data.file, ...(data.traceparent ? { parent: data.traceparent } : {}) });
    try {
      const prdDir = queuedPrdFolder(env.workdir, data.placement);
      // The PRD workflow as flow run has it: progress log, story memory, commits.
      const { hooks, workflow } = await workflowFor({
        prdFile: queuedProjectPrd(env.workdir, data.placement, data.file),
        readFrom: prdFile,
        storeRoot: environment.store.root,
        ...(data.parallel ? { parallel: data.parallel } : {}),
      });
      const parts = await environment.parts({
        ...(data.model ? { model: data.model } : {}),
        ...(data.harness ? { harness: data.harness } : {}),
      });
      const store = new QueuedRunStore(
        environment.store,
        new RedisCallJournal(env.redis, data.executionId, env.settings),
        approvals,
      );
      const session = await startRun(
        {
          ...parts,
          store,
          hooks,
          onEvent: (event) => tracker.onEvent(event),
          ...(trace ? { onEmitted: trace } : {}),
          ...(policy ? { approvals: { policy } } : {}),
        },
        {
          prdFile,
          prdDir,
          runId: data.executionId,
          failFast: data.failFast,
          ...(data.parallel ? { parallel: data.parallel } : {}),
          ...(data.stories ? { stories: data.stories } : {}),
          record: {
            mcpConfig: environment.mcpConfig.file ? resolve(environment.mcpConfig.file) : undefined,
            agents: environment.agents,
            skills: environment.skillsDir,
            ...(policy ? { approvals: policy } : {}),
            workflow,
          },
        },
      );
      const abort = () => session.abort();
      signal.addEventListener("abort", abort, { once: true });
      if (signal.aborted) session.abort();
      const summary = await session.done;
      signal.removeEventListener("abort", abort);
      await tracker.flush();
      if (summary.error) throw summary.error;
      if (summary.paused?.code === "approval_required")
        return {
          status: "awaiting_approval",
          waiting: (summary.paused.pending ?? []).map((p) => `${p.storyId}: ${p.tool} (${p.key})`).join("; "),
          counts: summary.counts,
          stories: tracker.reports(),
        };
      const status = summary.status === "passed" ? "passed" : summary.status === "aborted" ? "aborted" : "failed";
      return { status, counts: summary.counts, stories: tracker.reports() };
    } finally {
      rmSync(prdFile, { force: true });
    }
  };
}

const noCounts = () => ({ passed: 0, failed: 0, blocked: 0, skipped: 0 });

/** A queued run's approvals book: its lines in Redis, shared by every worker and `flow approve --redis`. */
export function queuedApprovals(
  env: { redis: RedisClient; settings: Partial<QueueSettings> },
  runId: string,
): ApprovalBook {
  return approvalBookOver(new RedisApprovalLines(env.redis, runId, env.settings), `approvals of queued run ${runId}`);
}

/** The calls of one execution of a queued run that wait for a decision, as a line; undefined when none. */
async function waitingCalls(book: ApprovalBook, executionId: string): Promise<string | undefined> {
  const { pending } = approvalLedger(await book.lines());
  const mine = pending.filter((p) => p.key.startsWith(`${executionId}/`));
  return mine.length ? mine.map((p) => `${p.storyId}: ${p.tool} (${p.key})`).join("; ") : undefined;
}
