import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { PrdGitSchema, PrdSplitter } from "@meshflow/core";

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
 * story is parsed on its own and only its outline kept, so a PRD of any size costs little memory;
 * with `stories: false` no story is parsed (the PRD's own fields only, `stories` empty).
 */
export function readPrdOutline(file: string, options: { stories?: boolean } = {}): PrdOutline | undefined {
  const withStories = options.stories !== false;
  const path = resolve(file);
  try {
    const known = last && last.path === path && last.version === versionOf(statSync(path)) ? last : undefined;
    if (known && (known.withStories || !withStories)) {
      // Read once for this command: the stories are given once, then only the PRD's own fields.
      if (known.withStories && !withStories) last = { ...known, withStories: false, outline: headOnly(known.outline) };
      return withStories ? known.outline : headOnly(known.outline);
    }
    const stories: OutlineStory[] = [];
    const splitter = new PrdSplitter(({ bytes }) => {
      if (!withStories) return;
      const story = outlineStory(JSON.parse(bytes.toString("utf8")));
      if (story) stories.push(story);
    });
    const fd = openSync(path, "r");
    let version: string;
    try {
      version = versionOf(fstatSync(fd));
      for (;;) {
        const chunk = Buffer.allocUnsafe(CHUNK);
        const read = readSync(fd, chunk, 0, CHUNK, null);
        if (read === 0) break;
        splitter.push(chunk.subarray(0, read));
      }
    } finally {
      closeSync(fd);
    }
    const text = splitter.finish();
    if (text === undefined) return undefined;
    const head = record(JSON.parse(text));
    const outline: PrdOutline = {
      dependsOn: strings(head.dependsOn),
      ...(typeof head.branchName === "string" ? { branchName: head.branchName } : {}),
      commit: PrdGitSchema.safeParse(head.git).data?.commit === true,
      stories,
    };
    last = { path, version, withStories, outline };
    return outline;
  } catch {
    return undefined;
  }
}

/**
 * The last outline read, while its file is unchanged: a command asks for the same PRD's outline
 * several times before its run starts (its dependencies, the servers to start early, git settings),
 * and a big PRD is then read once. Only one file's, and its stories only until they were asked for.
 */
let last: { path: string; version: string; withStories: boolean; outline: PrdOutline } | undefined;

const versionOf = (stat: { ino: number; size: number; mtimeMs: number }) => `${stat.ino}:${stat.size}:${stat.mtimeMs}`;

const headOnly = (outline: PrdOutline): PrdOutline => ({ ...outline, stories: [] });

const CHUNK = 1024 * 1024;

/** The outline's stories in run order: ascending priority, ties in file order. */
export function outlineRunOrder(outline: PrdOutline): OutlineStory[] {
  return outline.stories
    .map((s, i) => ({ s, i }))
    .sort((a, b) => a.s.priority - b.s.priority || a.i - b.i)
    .map(({ s }) => s);
}
