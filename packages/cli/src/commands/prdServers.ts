import { type OutlineStory, readPrdOutline } from "@meshflow/core";

/**
 * The MCP servers a PRD's stories to run name in their steps, read without validating the PRD (the
 * preflight does that): a best guess of which servers to start early, empty when the file cannot be read.
 */
export function prdServers(file: string, stories?: readonly string[]): string[] {
  const wanted = stories?.length ? new Set(stories) : undefined;
  const servers = new Set<string>();
  let outlined: OutlineStory[] = [];
  try {
    outlined = readPrdOutline(file)?.stories ?? [];
  } catch {
    // A broken `dependsOn`: the run says so.
  }
  for (const story of outlined)
    if (!story.passes && (!wanted || wanted.has(story.id))) for (const name of story.servers) servers.add(name);
  return [...servers];
}
