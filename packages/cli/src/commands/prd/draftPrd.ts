import {
  type ErrorCode,
  MeshflowError,
  type ModelClaim,
  type ModelStepIO,
  type ModelTask,
  type ModelTurnReport,
  type Prd,
  type Problem,
  type StepModel,
} from "@meshflow/core";
import type { PrdCheck } from "./checkPrd.js";
import { DraftSession, SUBMIT_DESCRIPTOR } from "./DraftSession.js";

/** What one drafting needs besides the model. */
export interface DraftInput {
  /** The drafting instructions ({@link draftInstructions}). */
  instructions: string;
  /** What the PRD is for: `--describe` and the notes of `--from`. */
  request: string;
  /** The PRD file the draft becomes (named in problems). */
  file: string;
  check: (value: unknown) => PrdCheck;
  knownServers: ReadonlySet<string>;
  /** Told each model turn (a progress line). */
  onTurn?: (report: ModelTurnReport) => void;
  /** Aborted when the person stops `flow` (Ctrl-C): the model loop, or the harness program, stops too. */
  signal?: AbortSignal;
}

/** An accepted draft, its warnings, and what drafting it used. */
export interface Draft {
  prd: Prd;
  warnings: Problem[];
  usage: ModelClaim["usage"];
}

/** How a loop that ended without an accepted draft is reported, by its stop code. */
const STOP_ERRORS: Readonly<Record<string, ErrorCode>> = {
  budget_exhausted: "budget_exhausted",
  auth_failed: "model_unavailable",
  replay_mismatch: "replay_mismatch",
  aborted: "aborted",
  model_no_outcome: "model_no_outcome",
};

/** The step a drafting model is given: the request as its story, the submit tool as its only tool. */
function draftTask(input: DraftInput): ModelTask {
  return {
    runId: "prd-new",
    storyId: "PRD",
    step: 1,
    specialist: "prd-writer",
    instructions: input.instructions,
    stepPurpose: "Drafting: turn the request below into a PRD of small, ordered stories with checkable criteria.",
    story: {
      id: "PRD",
      title: "Draft a PRD",
      description: input.request,
      acceptanceCriteria: [
        "prd__submit_draft accepts the draft",
        "Each story fits one run; stories are ordered dependencies first; every criterion can be checked",
      ],
      notes: "",
    },
    earlier: [],
    tools: [SUBMIT_DESCRIPTOR],
  };
}

/**
 * Has `model` (a model loop or a harness, with its budgets) draft a PRD: it submits drafts through
 * `prd__submit_draft`; an invalid one is answered with its problems and may be repaired once, a second
 * invalid one is refused (`prd_invalid`, listing the problems). Once a draft is accepted the loop is
 * stopped — no further turn is paid for. A loop that ends without an accepted draft is an error of its
 * stop code (`budget_exhausted` for a model that never finishes).
 */
export async function draftPrd(model: StepModel, input: DraftInput): Promise<Draft> {
  const abort = new AbortController();
  const stop = () => abort.abort();
  input.signal?.addEventListener("abort", stop, { once: true });
  const session = new DraftSession(input.check, input.knownServers, abort, input.file);
  const io: ModelStepIO = {
    call: async (name, args) => {
      const result = await session.call(name, args);
      if (session.accepted) abort.abort();
      return result;
    },
    turns: { get: async () => undefined, record: async () => {} },
    onTurn: (report) => input.onTurn?.(report),
    signal: abort.signal,
  };
  let claim: ModelClaim;
  try {
    claim = await model.run(draftTask(input), io);
  } finally {
    input.signal?.removeEventListener("abort", stop);
  }
  if (session.accepted) return { prd: session.accepted, warnings: session.warnings, usage: claim.usage };
  if (session.refused)
    throw new MeshflowError(
      "prd_invalid",
      `${model.name}'s draft was refused after one repair (${session.problems.length} problem(s)):\n${session.problems.map((p) => `${p.file}: ${p.path}: ${p.message}`).join("\n")}`,
      { details: { problems: session.problems } },
    );
  const code = (claim.code && STOP_ERRORS[claim.code]) ?? (claim.code ? "model_error" : "model_no_outcome");
  const why = claim.code
    ? claim.summary
    : `it finished (${claim.finish ?? claim.status}: ${claim.summary}) without submitting an accepted draft`;
  throw new MeshflowError(code, `${model.name} drafted no PRD: ${why}`, { details: { usage: claim.usage } });
}
