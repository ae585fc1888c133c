import { MAX_STEP, MIN_STEP } from "@meshflow/core";
import type { Guess } from "./Guess.js";
import type { MarkdownStory, QualityGate } from "./parseMarkdownPrd.js";
import { classifyStory, type StoryType, type StoryTypes, telling } from "./storyTypes.js";

/** One story of a Markdown PRD as PRD fields (everything but its servers and `verify`). */
export interface ConvertedStory {
  id: string;
  title: string;
  description: string;
  acceptanceCriteria: string[];
  mavenSteps: number[];
  priority: number;
  dependsOn?: string[];
  /** The kind its steps came from (a `**Type:**` line, else its words). */
  kind: StoryType;
}

/** What the story's own `**Steps:**` line says, or undefined (with a guess) when it says nothing usable. */
function ownSteps(story: MarkdownStory, id: string, guesses: Guess[]): number[] | undefined {
  const field = story.fields.steps;
  if (!field) return undefined;
  const steps = field.value
    .split(/[\s,]+/)
    .filter(Boolean)
    .map(Number);
  if (steps.length && steps.every((n) => Number.isInteger(n) && n >= MIN_STEP && n <= MAX_STEP)) return steps;
  guesses.push({
    story: id,
    line: field.line,
    message: `**Steps:** "${field.value}" is not a list of steps ${MIN_STEP}–${MAX_STEP} (e.g. "1, 7, 5"): steps taken from its kind instead`,
  });
  return undefined;
}

function kindOf(story: MarkdownStory, id: string, kinds: StoryTypes, guesses: Guess[]): StoryType {
  const field = story.fields.type;
  if (field) {
    const named = kinds.types.find((t) => t.name === field.value.trim().toLowerCase());
    if (named) return named;
    guesses.push({
      story: id,
      line: field.line,
      message: `**Type:** "${field.value}" is not a story kind (${kinds.types.map((t) => t.name).join(", ")}): kind guessed from its words`,
    });
  }
  const { type, matched } = classifyStory(
    kinds,
    story.title,
    [story.description, ...telling(kinds, story.criteria)].join("\n"),
  );
  const why = matched.length ? `its words ${matched.map((w) => `"${w}"`).join(", ")}` : "no keyword of any kind";
  guesses.push({
    story: id,
    line: story.line,
    message: `kind "${type.name}" (${type.description}) from ${why}: steps ${type.steps.join(", ")}`,
  });
  return type;
}

function priorityOf(story: MarkdownStory, id: string, position: number, guesses: Guess[]): number {
  const field = story.fields.priority;
  if (!field) return position;
  const n = Number(field.value.replace(/^P/i, ""));
  if (Number.isInteger(n) && n >= 0) return n;
  guesses.push({
    story: id,
    line: field.line,
    message: `**Priority:** "${field.value}" is not a whole number: priority ${position} (its place in the file) instead`,
  });
  return position;
}

/**
 * One Markdown story as PRD fields: steps from its `**Steps:**` line or from its kind, the quality
 * gates' checks appended to its criteria (those "for UI stories" only to stories of a `ui` kind),
 * priority from its `**Priority:**` line or its place (`position`, from 1). Guesses go to `guesses`.
 */
export function storyFromMarkdown(
  story: MarkdownStory,
  input: { id: string; position: number; kinds: StoryTypes; gates: readonly QualityGate[] },
  guesses: Guess[],
): ConvertedStory {
  const { id, position, kinds, gates } = input;
  if (!story.id) guesses.push({ story: id, line: story.line, message: `its heading has no id: given "${id}"` });
  const steps = ownSteps(story, id, guesses);
  const kind = steps
    ? (kinds.types.find((t) => t.steps.join() === steps.join()) ?? kinds.fallback)
    : kindOf(story, id, kinds, guesses);
  if (story.unlabelledCriteria)
    guesses.push({
      story: id,
      line: story.line,
      message: 'the list under it (no "Acceptance Criteria" label) taken as its criteria',
    });
  const criteria = [...story.criteria];
  for (const gate of gates) {
    if (gate.uiOnly && !kind.ui) continue;
    const check = gate.command ? `\`${gate.command}\` passes` : gate.text;
    if (!criteria.includes(check)) criteria.push(check);
  }
  const depends = story.fields.dependsOn?.value.match(/[A-Za-z][A-Za-z0-9]*-\d+/g) ?? [];
  return {
    id,
    title: story.title,
    // What follows the criteria is the author's too: kept in the description (notes belong to the runs).
    description: [story.description, ...story.notes].filter(Boolean).join(" "),
    acceptanceCriteria: criteria,
    mavenSteps: steps ?? [...kind.steps],
    priority: priorityOf(story, id, position, guesses),
    ...(depends.length ? { dependsOn: depends } : {}),
    kind,
  };
}
