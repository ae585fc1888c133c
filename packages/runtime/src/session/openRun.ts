import { resolve } from "node:path";
import { toMeshflowError } from "@meshflow/core";
import type { ChiefEvent } from "../machine/chiefAnalyst.js";
import { preflightRun } from "../preflight.js";
import type { StartRunOptions } from "../RunDependencies.js";
import type { RunRecord } from "../store/RunRecord.js";
import type { SessionState } from "./SessionState.js";

/**
 * A new run's preflight: load, validate, plan and discover, then create the run in the store. Resolves
 * to the machine's `PREFLIGHT_DONE`, or `PREFLIGHT_FAILED` with the reason kept in the state.
 */
export async function openRun(state: SessionState, options: StartRunOptions): Promise<ChiefEvent> {
  try {
    const checked = await preflightRun(state.deps, options.prdFile, options.stories);
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
    state.begin(handle, plan).setTools(checked.tools, checked.failures);
    return { type: "PREFLIGHT_DONE", prd: options.prdFile, stories: record.stories };
  } catch (error) {
    state.preflightError = toMeshflowError(error);
    return { type: "PREFLIGHT_FAILED", code: state.preflightError.code, message: state.preflightError.message };
  }
}
