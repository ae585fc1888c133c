import { stepKey, type VerifyCommand } from "@meshflow/core";
import { chooseServers } from "./chooseServers.js";
import type { Guess } from "./Guess.js";
import type { MarkdownPrd } from "./parseMarkdownPrd.js";
import type { ServerCapabilities } from "./serverCapabilities.js";
import type { StepNeeds } from "./stepNeeds.js";
import { storyFromMarkdown } from "./storyFromMarkdown.js";
import type { StoryTypes } from "./storyTypes.js";

/** Everything besides the Markdown that a converted PRD is made from. */
export interface BuildInputs {
  /** The project's name (package.json's, else its folder's). */
  project: string;
  /** Every story's completion gate (the project's tests, the quality gates' commands). */
  verify: VerifyCommand[];
  /** What the configured servers offer; undefined without an MCP config (no step gets servers). */
  servers: ServerCapabilities | undefined;
  kinds: StoryTypes;
  needs: StepNeeds;
  /** The PRD's `$schema`. */
  schema?: string;
  /** The PRD's `model`, for every story. */
  model?: string;
}

/** `Task Priority System` → `task-priority-system`. */
function kebab(text: string): string {
  const slug = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60)
    .replace(/-+$/, "");
  return slug || "prd";
}

/** The servers of each step number, chosen once (every story's step N gets the same), with a guess each. */
function stepServers(steps: Iterable<number>, inputs: BuildInputs, guesses: Guess[]): Map<number, string[]> {
  const chosen = new Map<number, string[]>();
  for (const step of [...new Set(steps)].sort((a, b) => a - b)) {
    const needs = inputs.needs.get(step) ?? [];
    if (!inputs.servers) {
      chosen.set(step, []);
      continue;
    }
    const { servers, missing } = chooseServers(needs, inputs.servers.servers);
    chosen.set(step, servers);
    const offer = servers.length ? servers.join(", ") : "no servers";
    const lacking = missing.length ? `; no configured server offers ${missing.join(", ")}` : "";
    guesses.push({ step, message: `step ${step} (needs ${needs.join(" or ") || "nothing"}): ${offer}${lacking}` });
  }
  return chosen;
}

/** A story id not taken yet: `US-001`, `US-002`, … by position. */
function freeId(position: number, taken: Set<string>): string {
  for (let n = position; ; n++) {
    const id = `US-${String(n).padStart(3, "0")}`;
    if (!taken.has(id)) return id;
  }
}

/**
 * A meshflow PRD from a Markdown PRD: one story per Markdown story in file order, steps from each
 * story's kind, per step the configured servers that offer what the step needs, every story the same
 * `verify`. What had to be guessed is pushed to `guesses`. The result is not validated here.
 */
export function buildPrd(markdown: MarkdownPrd, inputs: BuildInputs, guesses: Guess[]): Record<string, unknown> {
  const taken = new Set(markdown.stories.flatMap((s) => (s.id ? [s.id] : [])));
  const stories = markdown.stories.map((story, i) => {
    const id = story.id ?? freeId(i + 1, taken);
    taken.add(id);
    return storyFromMarkdown(story, { id, position: i + 1, kinds: inputs.kinds, gates: markdown.gates }, guesses);
  });
  const servers = stepServers(
    stories.flatMap((s) => s.mavenSteps),
    inputs,
    guesses,
  );
  const title = markdown.title ?? inputs.project;
  if (!markdown.title)
    guesses.push({ message: `no "# " title: the branch is named after the project "${inputs.project}"` });
  const intro = markdown.description;
  return {
    ...(inputs.schema ? { $schema: inputs.schema } : {}),
    project: inputs.project,
    branchName: `flow/${kebab(title)}`,
    description: intro ? (markdown.title ? `${markdown.title}: ${intro}` : intro) : title,
    ...(inputs.model ? { model: inputs.model } : {}),
    userStories: stories.map(({ kind: _kind, mavenSteps, ...story }) => ({
      id: story.id,
      title: story.title,
      description: story.description,
      acceptanceCriteria: story.acceptanceCriteria,
      mavenSteps,
      mcpTools: Object.fromEntries(
        mavenSteps.flatMap((step) => (servers.get(step)?.length ? [[stepKey(step), servers.get(step)]] : [])),
      ),
      ...(inputs.verify.length ? { verify: inputs.verify } : {}),
      ...(story.dependsOn ? { dependsOn: story.dependsOn } : {}),
      priority: story.priority,
      passes: false,
      notes: "",
    })),
  };
}
