import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { ListFilesResult } from "../../WorkspaceResults.js";
import type { ToolContext } from "../ToolContext.js";
import { guarded, okResult } from "../toolResult.js";
import { walkFiles } from "../walkFiles.js";
import { describeSkips, scanInput } from "./scanInput.js";

/** `list_files`: files under a folder, filtered by a glob, gitignore-aware, bounded. */
export function registerListFiles(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    "list_files",
    {
      title: "List workspace files",
      description: [
        "List the files under a folder of the workspace (default: the whole workspace), with their sizes in bytes,",
        "sorted by path. Paths are relative to the workspace root.",
        '`pattern` is a glob over those paths: "src/**/*.ts", "*.{json,yaml}" (a pattern without \'/\' matches',
        "file names at any depth). .git and node_modules are always skipped; files ignored by .gitignore are",
        "skipped unless `respectGitignore` is false; symlinks pointing outside the root are never followed.",
        `At most ${ctx.maxFiles} files are examined and \`maxResults\` returned; \`truncated\` says when there is more.`,
      ].join(" "),
      inputSchema: {
        ...scanInput(),
        maxResults: z
          .number()
          .int()
          .positive()
          .max(ctx.maxFiles)
          .default(Math.min(1000, ctx.maxFiles))
          .describe("Most paths returned"),
      },
      annotations: {
        title: "List workspace files",
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    ({ path, pattern, respectGitignore, maxResults }) =>
      guarded(async () => {
        const start = await ctx.root.resolveExisting(path, "any");
        const walk = await walkFiles(ctx.root, start, { pattern, respectGitignore, maxFiles: ctx.maxFiles });
        const files = walk.files.slice(0, maxResults).map((f) => ({ path: f.rel, bytes: f.size }));
        const truncated = walk.truncated || walk.files.length > maxResults;
        const structured: ListFilesResult = {
          path: start.rel,
          pattern: pattern ?? null,
          files,
          matched: walk.files.length,
          examined: walk.examined,
          truncated,
          skipped: walk.skipped,
        };
        const lines = [
          `${walk.files.length} file(s) under ${start.rel}${pattern ? ` matching ${pattern}` : ""}${truncated ? ` (truncated: ${files.length} shown)` : ""}`,
          ...files.map((f) => `${f.path}\t${f.bytes}`),
        ];
        const skips = describeSkips(walk.skipped);
        if (skips) lines.push(skips);
        return okResult(lines.join("\n"), structured);
      }),
  );
}
