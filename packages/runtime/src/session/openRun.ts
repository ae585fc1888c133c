import { resolve } from "node:path";
import { toMeshflowError } from "@meshflow/core";
import { VerifyGroups } from "../allowlists/VerifyGroups.js";
import type { ChiefEvent } from "../machine/chiefAnalyst.js";
import { parallelWaves } from "../machine/parallelWaves.js";
import type { ParallelOrder } from "../machine/StoryOrder.js";
import { preflightRun } from "../preflight.js";
import type { StartRunOptions } from "../RunDependencies.js";
import type { RunPlan } from "../RunPlan.js";
import type { RunRecord } from "../store/RunRecord.js";
import type { SessionState } from "./SessionState.js";

/**
 * Why `--parallel n` runs nothing side by side in this plan, when it does not (no two of its stories may
 * run together): said once, naming the flag that would change it.
 */
function aloneNotice(plan: RunPlan, parallel: number, order: ParallelOrder | undefined): string | undefined {
  if (parallel <= 1) return undefined;
  const stories = plan.stories.map((s) => ({
    id: s.id,
    priority: s.story.priority,
    dependsOn: s.story.dependsOn,
    skipped: s.skipped,
  }));
  const waves = parallelWaves(stories, parallel, order);
  if (waves.length < 2 || waves.some((w) => w.length > 1)) return undefined;
  return order === "deps"
    ? `--parallel ${parallel}: no two stories of ${plan.prdFile} can run together (each dependsOn the one before it); they run one at a time`
    : `--parallel ${parallel}: no two stories of ${plan.prdFile} can run together (stories run together only within one priority band, and every story has a priority of its own); they run one at a time — --parallel-order deps runs any stories whose dependsOn have passed, whatever their priority`;
}

/**
 * A new run's preflight: load, validate, plan and discover, then create the run in the store. Resolves
 * to the machine's `PREFLIGHT_DONE`, or `PREFLIGHT_FAILED` with the reason kept in the state.
 */
export async function openRun(state: SessionState, options: StartRunOptions): Promise<ChiefEvent> {
  try {
    const { specialists, plane, mcpConfig } = state.deps;
    const verifies = new VerifyGroups(specialists);
    const checked = await preflightRun(state.deps, options.prdFile, options.stories, true, (story, names) =>
      verifies.add(story, names),
    );
    const time = new Date().toISOString();
    const record: RunRecord = {
      runId: state.runId,
      prd: checked.plan.prdFile,
      prdDigest: checked.prdDigest,
      stories: checked.plan.stories.map((s) => s.id),
      options: {
        ...options.record,
        failFast: options.failFast === true,
        stories: options.stories,
        ...(options.parallel && options.parallel > 1 ? { parallel: options.parallel } : {}),
      },
      status: "running",
      createdAt: time,
      updatedAt: time,
      pid: process.pid,
      counts: { passed: 0, failed: 0, blocked: 0, skipped: 0 },
    };
    const handle = await state.deps.store.create(record).catch((error: unknown) => {
      checked.plan.close();
      throw error;
    });
    const plan = options.prdDir ? { ...checked.plan, prdDir: resolve(options.prdDir) } : checked.plan;
    state.warnings.push(...checked.warnings);
    const alone = aloneNotice(checked.plan, options.parallel ?? 1, options.record.parallelOrder);
    const refused = verifies.notices({ tools: checked.tools, failures: checked.failures, plane, mcpConfig });
    // Said before the stories start, when someone listens then; else with the run's warnings.
    for (const notice of [...(alone ? [alone] : []), ...refused])
      if (state.deps.onNotice) state.deps.onNotice(notice);
      else state.warnings.push(notice);
    state.begin(handle, plan).setTools(checked.tools, checked.failures);
    return { type: "PREFLIGHT_DONE", prd: options.prdFile, stories: record.stories };
  } catch (error) {
    state.preflightError = toMeshflowError(error);
    return { type: "PREFLIGHT_FAILED", code: state.preflightError.code, message: state.preflightError.message };
  }
}
