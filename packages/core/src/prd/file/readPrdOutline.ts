import { statSync } from "node:fs";
import { resolve } from "node:path";
import { MeshflowError } from "../../errors/MeshflowError.js";
import { PrdGitSchema } from "../PrdSchema.js";
import { readPrdSync } from "./readPrd.js";

/** What a command needs of a story before a run: read leniently, one story at a time. */
export interface OutlineStory {
  id: string;
  priority: number;
  passes: boolean;
  /** The MCP servers its steps name. */
  servers: string[];
}

/** The fields of a PRD a command needs before its run (the run validates the PRD itself). */
export interface PrdOutline {
  project?: string;
  dependsOn: string[];
  branchName?: string;
  commit: boolean;
  stories: OutlineStory[];
}

const record = (value: unknown): Record<string, unknown> =>
  value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];

/**
 * The last outline read, while its file is unchanged (inode, size, mtime): a command asks for one PRD's
 * outline several times before its run, and a big PRD is read once. Its stories are kept only until
 * they were asked for.
 */
let last: { path: string; version: string; withStories: boolean; outline: PrdOutline } | undefined;

/**
 * A PRD's outline, or undefined when the file cannot be read or is not strict JSON shaped like a PRD.
 * Each story is parsed on its own and only its outline kept; with `stories: false` none is parsed.
 * Throws `prd_invalid` for a `dependsOn` that is not an array of PRD file names, as a folder run does.
 */
export function readPrdOutline(file: string, options: { stories?: boolean } = {}): PrdOutline | undefined {
  const withStories = options.stories !== false;
  const path = resolve(file);
  const stories: OutlineStory[] = [];
  let head: Record<string, unknown>;
  let version: string;
  try {
    const stat = statSync(path);
    version = `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
    if (last?.path === path && last.version === version && (last.withStories || !withStories)) {
      if (!withStories) last = { ...last, withStories: false, outline: { ...last.outline, stories: [] } };
      return last.outline;
    }
    const onStory = (value: unknown) => {
      const story = record(value);
      if (typeof story.id !== "string") return;
      const priority = typeof story.priority === "number" ? story.priority : Number.POSITIVE_INFINITY;
      const servers = [...new Set(Object.values(record(story.mcpTools)).flatMap(strings))];
      stories.push({ id: story.id, priority, passes: story.passes === true, servers });
    };
    const read = readPrdSync(path, { whole: false, ...(withStories ? { onStory } : {}) });
    if (read.head === undefined) return undefined;
    head = record(read.head);
  } catch {
    return undefined;
  }
  const { dependsOn = [], project, branchName } = head;
  if (!Array.isArray(dependsOn) || dependsOn.some((d) => typeof d !== "string"))
    throw new MeshflowError("prd_invalid", `${file}: $.dependsOn: expected an array of PRD file names`, {
      details: { file, path: "$.dependsOn" },
    });
  const outline: PrdOutline = {
    ...(typeof project === "string" ? { project } : {}),
    dependsOn,
    ...(typeof branchName === "string" ? { branchName } : {}),
    commit: PrdGitSchema.safeParse(head.git).data?.commit === true,
    stories,
  };
  last = { path, version, withStories, outline };
  return outline;
}

/** The outline's stories in run order: ascending priority, ties in file order. */
export function outlineRunOrder(outline: PrdOutline): OutlineStory[] {
  return outline.stories
    .map((s, i) => ({ s, i }))
    .sort((a, b) => a.s.priority - b.s.priority || a.i - b.i)
    .map(({ s }) => s);
}
