import { join } from "node:path";
import { MeshflowError, type StepStatus } from "@meshflow/core";
import { readNdjson } from "../internal/ndjson.js";
import type { FileRunStore } from "../store/FileRunStore.js";
import type { RunRecord } from "../store/RunRecord.js";
import type { CarriedStep, ConcludedStep } from "./StoryHooks.js";

/** What `flow run --rerun-failed <runId>` runs: the failed and blocked stories, their passed steps kept. */
export interface RerunPlan {
  /** The earlier run's record (its PRD, its options). */
  record: RunRecord;
  /** Ids of the stories that failed or were blocked, in the order they concluded. */
  stories: string[];
  /** Their passed steps, by story id then step index: kept, not run again. */
  carried: Map<string, Map<number, CarriedStep>>;
}

interface EvidenceRecord {
  storyId: string;
  status: StepStatus;
  steps?: ConcludedStep[];
}

/**
 * Reads what an earlier run left (its record and `evidence.ndjson`, the last record of each story
 * winning) and plans a re-run of only its failed and blocked stories: their steps that passed keep
 * their results and evidence, the rest (the failed or blocked step, the steps after it, the gate) run
 * again. Throws `run_not_found`, or `usage` when the run has no failed or blocked story.
 */
export async function rerunPlan(store: FileRunStore, runId: string): Promise<RerunPlan> {
  const { record } = await store.read(runId);
  const latest = new Map<string, EvidenceRecord>();
  for (const line of readNdjson(join(store.root, "runs", runId, "evidence.ndjson")) as EvidenceRecord[])
    latest.set(line.storyId, line);
  const stories: string[] = [];
  const carried = new Map<string, Map<number, CarriedStep>>();
  for (const [storyId, evidence] of latest) {
    if (evidence.status !== "failed" && evidence.status !== "blocked") continue;
    stories.push(storyId);
    const kept = new Map<number, CarriedStep>();
    (evidence.steps ?? []).forEach((step, index) => {
      if (step.status !== "passed") return;
      kept.set(index, {
        step: step.step,
        specialist: step.specialist,
        status: "passed",
        summary: step.summary.startsWith("kept from run ") ? step.summary : `kept from run ${runId}: ${step.summary}`,
        calls: step.calls ?? [],
        evidence: step.evidence ?? [],
      });
    });
    carried.set(storyId, kept);
  }
  if (!stories.length)
    throw new MeshflowError("usage", `run ${runId} has no failed or blocked story; nothing to re-run`, {
      details: { runId },
    });
  return { record, stories, carried };
}
