import type { ModelTask } from "@meshflow/core";

/** The finishing tools a model ends a step with; each takes `{ summary }`. */
export const FINISHING_TOOLS = {
  step_pass: "The step's work is done: say what you did and how it meets the step. Your claim is checked.",
  step_fail: "You attempted the step and it cannot be made to work: say what failed.",
  step_block: "The step cannot be attempted (a missing tool, file, permission or information): say what is missing.",
} as const;

/** The name of a finishing tool. */
export type FinishingTool = keyof typeof FINISHING_TOOLS;

/** The JSON Schema every finishing tool takes. */
export const FINISHING_SCHEMA = {
  type: "object",
  properties: { summary: { type: "string", description: "One or two sentences for the run report." } },
  required: ["summary"],
  additionalProperties: false,
} as const;

/** The system prompt of a step: who the model is, what the step is for, the rules of the run. */
export function systemPrompt(task: ModelTask): string {
  return [
    `You are ${task.specialist}, a specialist agent working on one step of a user story.`,
    "",
    task.instructions.trim(),
    "",
    `## Step ${task.step}`,
    task.stepPurpose,
    "",
    "## How this works",
    "- Do the step's work with the tools you are given; they are the only ones you have. Tool names are <server>__<tool>.",
    "- A tool result that is an error is information: read it and go on (another tool, other arguments), or finish.",
    "- Finish by calling exactly one of step_pass, step_fail or step_block with a short summary.",
    "- step_pass is a claim, not a verdict: the specialist's own checks and the story's verify commands decide.",
  ].join("\n");
}

/**
 * The first user message of a step: the story, its acceptance criteria, the outcomes of its earlier
 * steps, and what the run remembers (finished stories, learnings) when it has any.
 */
export function taskMessage(task: ModelTask): string {
  const { head, tail } = storyLines(task);
  return [...head, ...memoryLines(task), ...tail].join("\n");
}

/** The story part of a step's first message (everything but what the run remembers). */
export function storyText(task: ModelTask): string {
  const { head, tail } = storyLines(task);
  return [...head, ...tail].join("\n");
}

/** What the run remembers in a step's first message: finished stories and learnings (empty when none). */
export function memoryText(task: ModelTask): string {
  return memoryLines(task).join("\n").trim();
}

/** The story's lines before and after the memory's place in the message. */
function storyLines(task: ModelTask): { head: string[]; tail: string[] } {
  const { story } = task;
  const head = [`# Story ${story.id}: ${story.title}`];
  if (story.description) head.push("", story.description);
  if (story.acceptanceCriteria.length)
    head.push("", "## Acceptance criteria", ...story.acceptanceCriteria.map((c) => `- ${c}`));
  if (story.notes) head.push("", "## Notes", story.notes);
  if (task.earlier.length)
    head.push(
      "",
      "## Earlier steps of this story",
      ...task.earlier.map((e) => `- step ${e.step} (${e.specialist}): ${e.status}: ${e.summary}`),
    );
  const tail = ["", `Do step ${task.step} of this story now.`];
  if (task.ask) tail.push("", task.ask);
  return { head, tail };
}

function memoryLines(task: ModelTask): string[] {
  const lines: string[] = [];
  if (task.finished?.length)
    lines.push(
      "",
      "## Finished stories (newest first)",
      ...task.finished.map((f) => `- ${f.prd} ${f.storyId} ${f.title}: ${f.status}: ${f.summary}`),
    );
  if (task.learnings?.length)
    lines.push(
      "",
      "## Learnings from earlier stories (newest first)",
      ...task.learnings.map((l) => `- ${l.prd} ${l.storyId}: ${l.text}`),
    );
  return lines;
}

/** The reminder sent once when a reply calls no tool at all. */
export const REMINDER =
  "You did not call a tool. Continue the step with your tools, or finish it now by calling step_pass, step_fail or step_block with a summary.";
