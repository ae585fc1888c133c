import { MeshflowError, type Story } from "@meshflow/core";
import { MAX_CONSULT_DEPTH } from "../specialists/Consultation.js";
import type { Specialist } from "../specialists/defineSpecialist.js";

/**
 * The specialists `by` may consult in a story: the story's `consult` entry for it when there is one
 * (it replaces the specialist's own list), else the specialist's `consults`.
 */
export function allowedConsults(by: Pick<Specialist, "name" | "consults">, story: Pick<Story, "consult">): string[] {
  const own = story.consult?.[by.name];
  return [...(own ?? by.consults ?? [])];
}

/** Where a consultation is asked for: the chain of specialists asking, the story and step. */
export interface ConsultRequest {
  storyId: string;
  step: number;
  /** The step's specialist, then each consulted one down to the one asking now. */
  chain: readonly string[];
  /** Who the asking specialist may consult (see {@link allowedConsults}). */
  allowed: readonly string[];
  /** The specialist asked for. */
  target: string;
  /** Whether a specialist of that name is loaded. */
  known: boolean;
}

/**
 * Checks a consultation before it starts: declared (`consult_refused`), not back to a specialist
 * already in the chain (`consult_cycle`), no deeper than {@link MAX_CONSULT_DEPTH} (`consult_depth`),
 * a loaded specialist (`consult_refused`). Throws a {@link MeshflowError} naming specialists, story and step.
 */
export function checkConsult(request: ConsultRequest): void {
  const { storyId, step, chain, allowed, target } = request;
  const by = chain.at(-1) ?? "";
  const where = `${storyId} step ${step}`;
  const details = { storyId, step, chain: [...chain], target };
  if (chain.includes(target))
    throw new MeshflowError(
      "consult_cycle",
      `${by} may not consult ${target} in ${where}: ${[...chain, target].join(" → ")} is a cycle`,
      { details },
    );
  if (chain.length > MAX_CONSULT_DEPTH)
    throw new MeshflowError(
      "consult_depth",
      `${by} may not consult ${target} in ${where}: ${chain.join(" → ")} is already ${chain.length - 1} consultation(s) deep (the limit is ${MAX_CONSULT_DEPTH})`,
      { details },
    );
  if (!allowed.includes(target))
    throw new MeshflowError(
      "consult_refused",
      `${by} may not consult ${target} in ${where}: it may consult ${allowed.length ? allowed.join(", ") : "no specialist"} (its "consults", or the story's "consult": {"${by}": [...]})`,
      { details },
    );
  if (!request.known)
    throw new MeshflowError(
      "consult_refused",
      `${by} may not consult ${target} in ${where}: no specialist "${target}" is loaded`,
      {
        details,
      },
    );
}
