import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Interface } from "node:readline/promises";
import type { Prd } from "@meshflow/core";
import type { Output } from "../../output.js";
import type { PrdCheck } from "./checkPrd.js";
import { draftSummary } from "./draftSummary.js";

/** What the person at the terminal chose for a draft. */
export type ReviewChoice = { kind: "accept"; prd: Prd } | { kind: "regenerate" } | { kind: "quit" };

/** `$VISUAL`, else `$EDITOR`, else `vi`; split at spaces (`code -w`). */
function editorCommand(env: NodeJS.ProcessEnv): string[] {
  return (env.VISUAL || env.EDITOR || "vi").trim().split(/\s+/);
}

/**
 * Opens `text` in the person's editor (a temp file, the terminal handed to the editor) and returns
 * what they saved; undefined when the editor failed.
 */
function editText(text: string, output: Output): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-prd-"));
  const file = join(dir, "prd.json");
  try {
    writeFileSync(file, text);
    const [program = "vi", ...args] = editorCommand(process.env);
    const result = spawnSync(program, [...args, file], { stdio: "inherit" });
    if (result.error || result.status !== 0) {
      output.err(
        `flow: the editor ${program} failed (${result.error?.message ?? `exit ${result.status}`}): the draft is unchanged`,
      );
      return undefined;
    }
    return readFileSync(file, "utf8");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The edited text as a checked PRD, or its problems printed and undefined. */
function checkEdited(text: string, check: (value: unknown) => PrdCheck, output: Output): Prd | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    output.err(`flow: the edited draft is not JSON (${(error as Error).message}): edit it again`);
    return undefined;
  }
  const checked = check(value);
  if (checked.prd) return checked.prd;
  for (const p of checked.problems) output.err(`${p.path}: ${p.message}`);
  output.err("flow: the edited draft is not a valid PRD: edit it again");
  return undefined;
}

/**
 * Shows a draft on the terminal and asks: accept, edit (in `$VISUAL`/`$EDITOR`, checked again after),
 * regenerate (the model drafts again) or quit. Asks again after an edit, showing the edited draft.
 * Rejects (an AbortError) when `signal` is aborted while it asks.
 */
export async function reviewDraft(
  draft: Prd,
  check: (value: unknown) => PrdCheck,
  rl: Interface,
  output: Output,
  signal: AbortSignal,
): Promise<ReviewChoice> {
  let current = draft;
  let text = `${JSON.stringify(draft, null, 2)}\n`;
  // The last edit did not hold: accepting now would write something other than what was edited.
  let invalidEdit = false;
  for (;;) {
    if (!invalidEdit) output.err(["", ...draftSummary(current), ""].join("\n"));
    const answer = (await rl.question("[a]ccept and write, [e]dit, [r]egenerate, [q]uit? ", { signal }))
      .trim()
      .toLowerCase();
    if (answer === "a" || answer === "accept") {
      if (!invalidEdit) return { kind: "accept", prd: current };
      output.err("flow: the edited draft is not valid: [e]dit it again, [r]egenerate or [q]uit");
      continue;
    }
    if (answer === "r" || answer === "regenerate") return { kind: "regenerate" };
    if (answer === "q" || answer === "quit") return { kind: "quit" };
    if (answer !== "e" && answer !== "edit") continue;
    rl.pause();
    const edited = editText(text, output);
    rl.resume();
    if (edited === undefined) continue;
    text = edited;
    const prd = checkEdited(edited, check, output);
    invalidEdit = prd === undefined;
    if (prd) current = prd;
  }
}
