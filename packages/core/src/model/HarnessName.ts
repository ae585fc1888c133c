import { z } from "zod";

/** A harness's name as the PRD and `--harness` write it (the known ones are checked where harnesses are built). */
const HARNESS_NAME = /^[a-z][a-z0-9-]*$/;

/** The coding-agent program that works steps instead of meshflow's own model loop: a name, or one per specialist. */
export const HarnessChoiceSchema = z
  .union([
    z.string().regex(HARNESS_NAME, "a harness is named in lower case, e.g. claude-code, opencode, codex"),
    z.record(
      z.string().min(1),
      z.string().regex(HARNESS_NAME, "a harness is named in lower case, e.g. claude-code, opencode, codex"),
    ),
  ])
  .describe(
    'The coding agent that works the steps where a model would (claude-code, opencode, codex): one for every specialist, or one per specialist, e.g. {"development-agent": "claude-code"}. `--harness` overrides it.',
  );

/** A harness for every specialist, or one per specialist (see {@link HarnessChoiceSchema}). */
export type HarnessChoice = z.infer<typeof HarnessChoiceSchema>;

/** The harness a choice names for one specialist: the name itself, or the specialist's entry. */
function harnessIn(choice: HarnessChoice | undefined, specialist: string): string | undefined {
  if (choice === undefined) return undefined;
  return typeof choice === "string" ? choice : Object.hasOwn(choice, specialist) ? choice[specialist] : undefined;
}

/**
 * The harness of a specialist's step: `--harness`, else the story's `harness`, else the PRD's; a
 * per-specialist choice that does not name the specialist leaves it to the next one.
 */
export function chooseHarness(
  choice: { override?: string | undefined; story?: HarnessChoice | undefined; prd?: HarnessChoice | undefined },
  specialist: string,
): string | undefined {
  return choice.override || harnessIn(choice.story, specialist) || harnessIn(choice.prd, specialist) || undefined;
}
