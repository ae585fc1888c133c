import { readFileSync } from "node:fs";

/**
 * The MCP servers a PRD's stories to run name in their steps, read without validating the PRD (the
 * preflight does that): a best guess of which servers to start early, empty when the file cannot be read.
 */
export function prdServers(file: string, stories?: readonly string[]): string[] {
  try {
    const prd = JSON.parse(readFileSync(file, "utf8")) as {
      userStories?: Array<{ id?: unknown; passes?: unknown; mcpTools?: Record<string, unknown> }>;
    };
    const wanted = stories?.length ? new Set(stories) : undefined;
    const servers = new Set<string>();
    for (const story of prd.userStories ?? []) {
      if (story.passes === true || (wanted && !wanted.has(String(story.id)))) continue;
      for (const names of Object.values(story.mcpTools ?? {}))
        if (Array.isArray(names)) for (const name of names) if (typeof name === "string") servers.add(name);
    }
    return [...servers];
  } catch {
    return [];
  }
}
