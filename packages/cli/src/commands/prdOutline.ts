import { readFileSync } from "node:fs";
import { PrdGitSchema, splitPrdText } from "@meshflow/core";

/** What the CLI needs of a story before a run: read leniently, one story at a time. */
export interface OutlineStory {
  id: string;
  priority: number;
  passes: boolean;
  /** The MCP servers its steps name. */
  servers: string[];
}

/** The fields of a PRD the workflow needs before its run (the run validates the PRD itself). */
export interface PrdOutline {
  dependsOn: string[];
  branchName?: string;
  commit: boolean;
  stories: OutlineStory[];
}

const record = (value: unknown): Record<string, unknown> =>
  value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];

function outlineStory(raw: unknown): OutlineStory | undefined {
  const story = record(raw);
  if (typeof story.id !== "string") return undefined;
  return {
    id: story.id,
    priority: typeof story.priority === "number" ? story.priority : Number.POSITIVE_INFINITY,
    passes: story.passes === true,
    servers: [...new Set(Object.values(record(story.mcpTools)).flatMap(strings))],
  };
}

/**
 * A PRD's outline, or undefined when the file cannot be read or is not JSON shaped like a PRD. Each
 * story is parsed on its own and only its outline kept, so a PRD of any size costs little memory.
 */
export function readPrdOutline(file: string): PrdOutline | undefined {
  try {
    const text = readFileSync(file, "utf8");
    const parts = splitPrdText(text);
    if (!parts) return undefined;
    const head = record(JSON.parse(parts.head));
    const stories: OutlineStory[] = [];
    for (let i = 0; i < parts.spans.length; i += 2) {
      const story = outlineStory(JSON.parse(text.slice(parts.spans[i], parts.spans[i + 1])));
      if (story) stories.push(story);
    }
    return {
      dependsOn: strings(head.dependsOn),
      ...(typeof head.branchName === "string" ? { branchName: head.branchName } : {}),
      commit: PrdGitSchema.safeParse(head.git).data?.commit === true,
      stories,
    };
  } catch {
    return undefined;
  }
}

/** The outline's stories in run order: ascending priority, ties in file order. */
export function outlineRunOrder(outline: PrdOutline): OutlineStory[] {
  return outline.stories
    .map((s, i) => ({ s, i }))
    .sort((a, b) => a.s.priority - b.s.priority || a.i - b.i)
    .map(({ s }) => s);
}
