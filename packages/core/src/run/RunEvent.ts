import type { ErrorCode } from "../errors/MeshflowError.js";
import type { StepStatus } from "./types.js";

/** Fields every run event has. */
export interface EventBase {
  /** ISO-8601 time the event was recorded. */
  time: string;
  runId: string;
}

/** Every event a run records, in `events.ndjson` and on `--json` output. */
export type RunEvent =
  | (EventBase & { type: "run.started"; prd: string; stories: string[] })
  | (EventBase & { type: "run.resumed"; prd: string; state: string })
  | (EventBase & { type: "story.started"; storyId: string })
  | (EventBase & { type: "step.started"; storyId: string; step: number; specialist: string; tools: number })
  | (EventBase & {
      type: "tool.called";
      storyId: string;
      step: number;
      key: string;
      tool: string;
      argsDigest: string;
      destructive: boolean;
    })
  | (EventBase & {
      type: "tool.result";
      storyId: string;
      step: number;
      key: string;
      tool: string;
      isError: boolean;
      resultDigest: string;
      durationMs: number;
      /** True when the result came from the journal of an earlier attempt: the tool was not run again. */
      replayed?: boolean;
    })
  | (EventBase & {
      type: "tool.refused";
      storyId: string;
      step: number;
      key?: string;
      tool: string;
      code: ErrorCode;
      message: string;
      /** The refused tool is annotated `destructiveHint` (set when the tool was resolved). */
      destructive?: boolean;
    })
  | (EventBase & {
      type: "step.finished";
      storyId: string;
      step: number;
      status: StepStatus;
      summary: string;
      /** Tool calls the step made (refusals included). */
      calls?: number;
    })
  | (EventBase & {
      type: "gate.finished";
      storyId: string;
      passed: boolean;
      commands: number;
      summary: string;
    })
  | (EventBase & { type: "story.finished"; storyId: string; status: StepStatus | "skipped"; summary: string })
  | (EventBase & {
      type: "run.finished";
      status: "passed" | "failed" | "aborted";
      passed: number;
      failed: number;
      blocked: number;
      /**
       * Why a run that had started ended `failed` without finishing its stories: an exception in the
       * runtime (a machine action, an enricher, a store write, the PRD write-back), never a crash.
       */
      error?: { code: ErrorCode; message: string };
    });

/** The `type` of a run event. */
export type RunEventType = RunEvent["type"];
