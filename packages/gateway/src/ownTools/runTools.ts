import { join } from "node:path";
import { isMeshflowError, MODEL_HELP, type RunEvent } from "@meshflow/core";
import { refusal } from "@meshflow/mcp";
import { CORE_TOOLSET, defineLocalTool, jsonResult, type ServedTool } from "@meshflow/mcp/server";
import {
  type ApprovalPolicy,
  asksForApproval,
  effectiveStatus,
  loadApprovalPolicy,
  newRunId,
  type RunEnvironment,
  type RunRecord,
  startRun,
  storyReports,
  workflowFor,
} from "@meshflow/runtime/host";
import { z } from "zod";
import type { PrdRoot } from "../runs/PrdRoot.js";
import type { RunTracker } from "../runs/RunTracker.js";

/** How long `flow_run_prd` waits for the run's preflight before answering with its id anyway. */
const PREFLIGHT_WAIT_MS = 30_000;

/** What the run tools work with. */
export interface RunToolsContext {
  /** The runtime's run environment: specialists, routing, store, the tool plane under the gateway's guard. */
  env: RunEnvironment;
  /** The folder PRD files must lie in. */
  prds: PrdRoot;
  tracker: RunTracker;
  /** A listener for one run's events (traces), made for each run started. */
  traceRun?: ((prd: string) => ((event: RunEvent) => void) | undefined) | undefined;
}

/**
 * Each story's outcome and steps (each step once: a resumed step's last attempt), from the one report
 * builder `flow status` uses; `refusals` lists the steps' refused calls again, each with its step.
 */
function storiesOf(record: RunRecord, events: readonly RunEvent[]) {
  return storyReports(record, events).map((story) => ({
    ...story,
    refusals: story.steps.flatMap((s) => s.refusals.map((r) => ({ step: s.step, ...r }))),
  }));
}

/** `flow_run_prd` and `flow_run_status`. */
export function runTools({ env, prds, tracker, traceRun }: RunToolsContext): ServedTool[] {
  return [
    defineLocalTool({
      name: "flow_run_prd",
      toolset: CORE_TOOLSET,
      title: "Run a PRD",
      rich: "Starts a meshflow run of a PRD file in the background: every story step goes to its specialist, whose tool calls go through the resolver and middleware, and the completion gate marks passing stories in the PRD. Answers with the run id once the preflight passed (or with every problem of an invalid PRD); follow it with flow_run_status. Not for a quick look: use flow_plan.",
      minimal: "Start a run of a PRD in the background; returns its run id.",
      input: {
        prd: z.string().min(1).describe("PRD file, relative to the server's working folder"),
        stories: z.array(z.string()).optional().describe("only these story ids"),
        failFast: z.boolean().default(false).describe("start no further story after one fails"),
        model: z
          .string()
          .optional()
          .describe(
            `the model for every story, <provider>:<model-id> (${MODEL_HELP.names}); default: the server's --model, the PRD's and stories' model, FLOW_MODEL`,
          ),
        harness: z
          .string()
          .optional()
          .describe(
            "the coding agent that works every step where a model would (claude-code, opencode, codex); default: the server's --harness, the PRD's and stories' harness",
          ),
        approve: z
          .enum(["none", "destructive", "all"])
          .default("none")
          .describe(
            "calls that wait for a person's approval (flow_approve, flow approve, the console) besides the rules of the store's approvals.yaml: none, destructive (destructiveHint tools) or all; the run waits in this server until decided",
          ),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
      run: async ({ prd, stories, failFast, model, harness, approve }) => {
        const prdFile = prds.path(prd);
        const rulesFile = join(env.store.root, "approvals.yaml");
        let approvals: ApprovalPolicy;
        try {
          approvals = loadApprovalPolicy(approve, rulesFile, false);
        } catch (error) {
          if (isMeshflowError(error)) return refusal(error.code, `run refused: ${error.message}`);
          throw error;
        }
        const asks = asksForApproval(approvals);
        // The PRD workflow, as flow run has it: progress log, story memory, "git": {"commit": true}.
        const planned = await workflowFor({ prdFile, storeRoot: env.store.root }).catch((error: unknown) => {
          if (isMeshflowError(error)) return error;
          throw error;
        });
        if (isMeshflowError(planned)) return refusal(planned.code, `run refused: ${planned.message}`);
        const parts = await env.parts({ ...(model ? { model } : {}), ...(harness ? { harness } : {}) });
        const runId = newRunId();
        const trace = traceRun?.(prd);
        let markStarted: () => void = () => {};
        const started = new Promise<void>((resolve) => {
          markStarted = resolve;
        });
        const session = await startRun(
          {
            ...parts,
            hooks: planned.hooks,
            // A served run waits in this long-lived process for decisions (flow_approve, the console).
            ...(asks ? { approvals: { policy: approvals, waitMs: Number.POSITIVE_INFINITY } } : {}),
            onEvent: (event) => {
              tracker.event(runId, event);
              trace?.(event);
              if (event.type === "run.started") markStarted();
            },
          },
          {
            prdFile,
            runId,
            failFast,
            ...(stories?.length ? { stories } : {}),
            record: {
              agents: env.agents,
              ...(env.mcpConfig.file ? { mcpConfig: env.mcpConfig.file } : {}),
              ...(env.routingFile ? { routing: env.routingFile } : {}),
              ...(env.skillsDir ? { skills: env.skillsDir } : {}),
              ...(asks ? { approvals } : {}),
              workflow: planned.workflow,
            },
          },
        );
        tracker.add({ runId, prd: prdFile, startedAt: new Date().toISOString(), session });
        let timer: NodeJS.Timeout | undefined;
        const first = await Promise.race([
          started.then(() => "started" as const),
          session.done.then((summary) => summary),
          new Promise<"waiting">((resolve) => {
            timer = setTimeout(() => resolve("waiting"), PREFLIGHT_WAIT_MS);
          }),
        ]);
        clearTimeout(timer);
        if (typeof first === "object" && first.status === "refused" && first.error)
          return refusal(first.error.code, `run refused: ${first.error.message}`, { runId, ...first.error.details });
        const status = typeof first === "object" ? first.status : first === "started" ? "running" : "preflight";
        return jsonResult(
          { runId, status, prd: prdFile, ...(typeof first === "object" ? { counts: first.counts } : {}) },
          `run ${runId} ${status === "running" ? "started" : status} for ${prdFile}; follow it with flow_run_status {"runId": "${runId}"}`,
        );
      },
    }),
    defineLocalTool({
      name: "flow_run_status",
      toolset: CORE_TOOLSET,
      title: "Run status",
      rich: "Reads a run from the run store: its status (running, passed, failed, aborted, or interrupted when its process died), counts, and each story's steps, outcomes and refused tool calls. Without a run id it lists the newest runs. Use it after flow_run_prd; it never changes anything and works while the guard is locked.",
      minimal: "Show a run's status, stories and steps (or list recent runs).",
      input: {
        runId: z.string().optional().describe("the run id flow_run_prd returned; omit to list recent runs"),
        limit: z.number().int().min(1).max(100).default(10).describe("runs to list without a run id"),
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async ({ runId, limit }) => {
        if (!runId) {
          const runs = (await env.store.list()).slice(0, limit).map((r) => ({
            runId: r.runId,
            status: effectiveStatus(r),
            prd: r.prd,
            createdAt: r.createdAt,
            counts: r.counts,
          }));
          const active = tracker.active().map((r) => r.runId);
          return jsonResult(
            { runs, active },
            runs.length
              ? runs.map((r) => `${r.runId}  ${r.status}  ${r.prd}`).join("\n")
              : `no runs in ${env.store.root}`,
          );
        }
        const tracked = tracker.get(runId);
        if (tracked?.summary?.status === "refused" && tracked.summary.error)
          return jsonResult({
            runId,
            status: "refused",
            prd: tracked.prd,
            error: { code: tracked.summary.error.code, message: tracked.summary.error.message },
          });
        if (tracked && !tracked.summary && !tracked.last)
          return jsonResult({ runId, status: "preflight", prd: tracked.prd }, `run ${runId}: preflight in progress`);
        const { record, events } = await env.store.read(runId);
        const stories = storiesOf(record, events);
        const status = tracked && !tracked.summary ? "running" : effectiveStatus(record);
        const body = {
          runId,
          status,
          prd: record.prd,
          createdAt: record.createdAt,
          updatedAt: record.updatedAt,
          counts: record.counts,
          stories,
          ...(tracked?.summary?.warnings.length ? { warnings: tracked.summary.warnings } : {}),
          // The guard locked: the run stopped where it was, resumable once the guard is unlocked.
          ...(tracked?.summary?.paused ? { paused: tracked.summary.paused } : {}),
        };
        const lines = stories.map(
          (s) => `${s.id} ${s.status}${s.summary ? `: ${s.summary}` : ""} (${s.steps.length} steps)`,
        );
        const paused = tracked?.summary?.paused
          ? `\npaused: the guard locked (${tracked.summary.paused.reason}); no story failed because of it; unlock the guard (flow_emergency_unlock), then continue it with: flow resume ${runId}`
          : "";
        return jsonResult(body, `run ${runId} ${status} (${record.prd})\n${lines.join("\n")}${paused}`);
      },
    }),
  ];
}
