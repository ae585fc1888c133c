import { relative, resolve } from "node:path";
import {
  didYouMean,
  formatProblem,
  hasErrors,
  loadPrdFile,
  loadRoutingTable,
  MeshflowError,
  parseModelName,
  storiesInRunOrder,
} from "@meshflow/core";
import type { EnqueueRequest, QueuedRun, RunQueue } from "@meshflow/queue";
import { EXIT, type ExitCode } from "../exitCodes.js";
import { type Output, printJson } from "../output.js";
import { processTracing } from "../tracing.js";
import { type ApprovalFlags, approvalPolicy } from "./approvalSettings.js";
import { onRedis } from "./onRedis.js";

/** Options of `flow enqueue`. */
export interface EnqueueOptions extends Omit<ApprovalFlags, "store"> {
  redis?: string;
  redisPrefix: string;
  perStory?: boolean;
  story?: string[];
  failFast?: boolean;
  /** Stories at most in progress at once on the worker (whole-PRD runs). */
  parallel?: number;
  /** The model for every story of the queued runs. */
  model?: string;
  /** The coding agent that works the queued runs' steps. */
  harness?: string;
  wait?: boolean;
  json?: boolean;
}

interface Planned {
  file: string;
  request: EnqueueRequest;
}

/** Reads and checks every PRD before anything is queued: one bad file queues nothing. */
async function plan(files: readonly string[], options: EnqueueOptions): Promise<Planned[]> {
  if ((options.parallel ?? 1) > 1 && options.perStory)
    throw new MeshflowError(
      "usage",
      "--parallel runs a whole-PRD run's stories side by side on its worker; with --per-story each story is a job of its own already",
    );
  const { asksForApproval, prdWorkDigest } = await import("@meshflow/runtime/host");
  const routing = loadRoutingTable();
  const planned: Planned[] = [];
  const problems: string[] = [];
  const approvals = approvalPolicy(options);
  const asks = asksForApproval(approvals);
  for (const file of files) {
    const loaded = await loadPrdFile(file, { routing });
    if (!loaded.prd || hasErrors(loaded.problems)) {
      problems.push(...loaded.problems.filter((p) => p.severity === "error").map(formatProblem));
      continue;
    }
    const prd = loaded.prd;
    if ((options.parallel ?? 1) > 1 && prd.git?.commit)
      throw new MeshflowError(
        "usage",
        `${file}: "git": {"commit": true} commits each story's changed files, which stories side by side would mix; queue it without --parallel`,
      );
    const known = prd.userStories.map((s) => s.id);
    for (const id of options.story ?? [])
      if (!known.includes(id)) problems.push(`${file}: no story "${id}"${didYouMean(id, known)}`);
    const wanted = options.story ? new Set(options.story) : undefined;
    const ordered = storiesInRunOrder(prd)
      .map((s) => s.story)
      .filter((s) => !wanted || wanted.has(s.id));
    const rel = relative(process.cwd(), resolve(file));
    planned.push({
      file,
      request: {
        file,
        placement: rel.startsWith("..") ? "" : rel,
        prdText: loaded.text,
        storyIds: ordered.filter((s) => !s.passes).map((s) => s.id),
        skipped: ordered.filter((s) => s.passes).map((s) => s.id),
        workDigest: prdWorkDigest(prd),
        perStory: options.perStory === true,
        ...(options.story ? { stories: options.story } : {}),
        failFast: options.failFast === true,
        ...(options.parallel && options.parallel > 1 ? { parallel: options.parallel } : {}),
        ...(options.model ? { model: options.model } : {}),
        ...(options.harness ? { harness: options.harness } : {}),
        ...(asks ? { approvals: { ...approvals } } : {}),
      },
    });
  }
  if (problems.length)
    throw new MeshflowError("prd_invalid", `nothing was queued:\n${problems.join("\n")}`, { details: { problems } });
  return planned;
}

const FINISHED = new Set(["passed", "failed"]);

/**
 * Polls the run board until every run has finished; says once why a run went back to the queue when
 * its worker paused (its guard locked), since it waits for a worker that can go on with it.
 */
async function waitForRuns(
  queue: RunQueue,
  runIds: readonly string[],
  output: Output,
): Promise<Map<string, QueuedRun>> {
  const done = new Map<string, QueuedRun>();
  const told = new Set<string>();
  while (done.size < runIds.length) {
    for (const runId of runIds) {
      if (done.has(runId)) continue;
      const run = await queue.board.get(runId);
      if (!run) throw new MeshflowError("run_not_found", `queued run ${runId} is no longer in Redis`);
      if (FINISHED.has(run.status)) done.set(runId, run);
      else if (run.status === "queued" && run.error?.includes(" paused: ") && !told.has(run.error)) {
        told.add(run.error);
        output.err(`flow: run ${runId} is back in the queue, no story failed: ${run.error}`);
      }
    }
    if (done.size < runIds.length) await new Promise((r) => setTimeout(r, 250));
  }
  return done;
}

/**
 * The completion gate's write on the machine that holds the file: stories the queued run passed get
 * `passes: true` and their note, only if the PRD's work is still what was queued; written again, as
 * `flow mark` does, while saves drop them. Throws `prd_changed` for a story gone or a file that kept changing.
 */
async function markPassed(file: string, run: QueuedRun, output: Output): Promise<number> {
  const marks = run.stories
    .filter((s) => s.status === "passed" && s.note)
    .map((s) => ({ storyId: s.id, note: s.note ?? "" }));
  if (!marks.length) return 0;
  const [{ loadPrdFile: load }, { prdWorkDigest, settleMarks }] = await Promise.all([
    import("@meshflow/core"),
    import("@meshflow/runtime/host"),
  ]);
  const now = await load(file, { routing: loadRoutingTable() });
  if (!now.prd || prdWorkDigest(now.prd) !== run.workDigest) {
    output.err(`flow: warning: ${file} changed since run ${run.runId} was queued; its passed stories were not marked`);
    return 0;
  }
  const { marked, error } = settleMarks(file, marks, { alwaysWatch: false });
  if (error !== undefined) throw error;
  return marked.length;
}

/** `flow enqueue <prd.json…>`: queues one run per PRD (or per story); `--wait` waits and marks passes. */
export async function enqueueCommand(files: string[], options: EnqueueOptions, output: Output): Promise<ExitCode> {
  const url = options.redis;
  if (!url) throw new MeshflowError("usage", "flow enqueue needs --redis <url> (or FLOW_REDIS_URL)");
  return onRedis(url, () => enqueue(files, { ...options, redis: url }, output));
}

async function enqueue(
  files: string[],
  options: EnqueueOptions & { redis: string },
  output: Output,
): Promise<ExitCode> {
  if (options.model) parseModelName(options.model, "--model");
  if (options.harness) (await import("@meshflow/harness")).harnessAdapter(options.harness);
  const planned = await plan(files, options);
  // With --wait this process writes the passes back at the end: it holds each PRD as a run does, so a
  // `flow run` (or another --wait) of the same file, under any name, is refused with prd_busy instead
  // of running its non-idempotent calls a second time.
  const releases = options.wait ? await lockPrds(planned.map((p) => p.file)) : [];
  const { assertNoEviction, connectRedis, RunQueue } = await import("@meshflow/queue");
  const redis = await connectRedis(options.redis, { role: options.wait ? "worker" : "client" }).catch(
    (error: unknown) => {
      for (const release of releases) release();
      throw error;
    },
  );
  let queue: RunQueue | undefined;
  try {
    await assertNoEviction(redis, options.redis);
    queue = await RunQueue.open({ redis, settings: { prefix: options.redisPrefix } });
    const enqueued = [];
    const tracing = await processTracing();
    for (const { request } of planned) {
      // The run's spans on the workers become children of this one.
      const span = tracing?.startSpan(`enqueue ${request.file}`, {
        kind: "producer",
        attributes: { "meshflow.prd": request.file },
      });
      const result = await queue
        .enqueue(span ? { ...request, traceparent: span.traceparent } : request)
        .catch((error: unknown) => {
          span?.exception(error).end();
          throw error;
        });
      span?.set({ "meshflow.run.id": result.runId, "meshflow.run.duplicate": result.duplicate }).end();
      enqueued.push(result);
      if (!options.json)
        output.out(
          result.duplicate
            ? `already queued ${result.runId}  ${result.file}  (same content; no new run)`
            : `queued ${result.runId}  ${result.file}  (${request.storyIds.length} ${request.storyIds.length === 1 ? "story" : "stories"}${request.perStory ? ", one job per story" : ""})`,
        );
    }
    if (!options.wait) {
      if (options.json) printJson(output, { runs: enqueued });
      return EXIT.ok;
    }
    const runs = await waitForRuns(
      queue,
      enqueued.map((e) => e.runId),
      output,
    );
    let allPassed = true;
    const report = [];
    for (const [i, entry] of enqueued.entries()) {
      const run = runs.get(entry.runId);
      const file = planned[i]?.file;
      if (!run || !file) continue;
      if (run.status !== "passed") allPassed = false;
      const marked = await markPassed(file, run, output);
      report.push({ ...entry, status: run.status, counts: run.counts, error: run.error, stories: run.stories, marked });
      if (!options.json) {
        const c = run.counts;
        output.out(
          `${run.runId} ${run.status}${c ? `: ${c.passed} passed, ${c.failed} failed, ${c.blocked} blocked, ${c.skipped} skipped` : ""}${run.error ? ` (${run.error})` : ""}${marked ? `; ${marked} marked passed in ${file}` : ""}`,
        );
        for (const story of run.stories)
          if (story.status !== "passed" && story.status !== "skipped")
            output.out(`    ${story.id} ${story.status}${story.summary ? `: ${story.summary}` : ""}`);
      }
    }
    if (options.json) printJson(output, { runs: report });
    return allPassed ? EXIT.ok : EXIT.failure;
  } finally {
    await queue?.close();
    await redis.quit().catch(() => redis.disconnect());
    for (const release of releases) release();
  }
}

/** Takes the lock of every PRD (`prd_busy` when one is held; those taken are released again). */
async function lockPrds(files: readonly string[]): Promise<Array<() => void>> {
  const { FileRunStore, lockPrd } = await import("@meshflow/runtime/host");
  const root = new FileRunStore().root;
  const releases: Array<() => void> = [];
  try {
    for (const file of new Set(files.map((f) => resolve(f))))
      releases.push(lockPrd(file, { runId: `enqueue-${process.pid}`, command: "flow enqueue --wait" }, root));
  } catch (error) {
    for (const release of releases) release();
    throw error;
  }
  return releases;
}
