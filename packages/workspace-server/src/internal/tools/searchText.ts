import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { SearchTextResult } from "../../WorkspaceResults.js";
import { SEARCH_FILE_BYTES, searchFiles } from "../searchFiles.js";
import type { ToolContext } from "../ToolContext.js";
import { guarded, okResult } from "../toolResult.js";
import { walkFiles } from "../walkFiles.js";
import { describeSkips, scanInput } from "./scanInput.js";

/** `search_text`: a regular expression over the workspace's text files, `file:line` results, capped. */
export function registerSearchText(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    "search_text",
    {
      title: "Search workspace files",
      description: [
        "Search the workspace's text files for a JavaScript regular expression, line by line, and return each",
        "match as path:line:column with the line's text — one call instead of reading files one by one.",
        "Files are selected like list_files (`path`, glob `pattern`, `respectGitignore`; .git and node_modules",
        `always skipped); binary files and files over ${SEARCH_FILE_BYTES} bytes are skipped and counted.`,
        "One match per line (the first). `caseSensitive` defaults to true.",
        `Stops at \`maxResults\` matches (\`truncated\` true) or after ${ctx.timeoutMs} ms (search_timeout).`,
      ].join(" "),
      inputSchema: {
        regex: z.string().min(1).describe('JavaScript regular expression, without slashes, e.g. "AKIA[0-9A-Z]{16}"'),
        ...scanInput(),
        caseSensitive: z.boolean().default(true).describe("Match case exactly (default true)"),
        maxResults: z.number().int().positive().max(5000).default(200).describe("Most matches returned"),
      },
      annotations: {
        title: "Search workspace files",
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    ({ regex, path, pattern, respectGitignore, caseSensitive, maxResults }, extra) =>
      guarded(async () => {
        const start = await ctx.root.resolveExisting(path, "any");
        const walk = await walkFiles(ctx.root, start, { pattern, respectGitignore, maxFiles: ctx.maxFiles });
        const found = await searchFiles(walk.files, regex, {
          root: ctx.root.real,
          caseSensitive,
          maxResults,
          timeoutMs: ctx.timeoutMs,
          signal: extra.signal,
        });
        const structured: SearchTextResult = {
          regex,
          path: start.rel,
          pattern: pattern ?? null,
          matches: found.matches,
          filesSearched: found.filesSearched,
          truncated: found.truncated || walk.truncated,
          skipped: {
            ...walk.skipped,
            binary: found.skipped.binary,
            tooLarge: found.skipped.tooLarge,
            unreadable: walk.skipped.unreadable + found.skipped.unreadable,
          },
        };
        const lines = [
          `${found.matches.length} match(es) of /${regex}/${caseSensitive ? "" : "i"} in ${found.filesSearched} file(s) under ${start.rel}` +
            `${structured.truncated ? " (truncated)" : ""}`,
          ...found.matches.map((m) => `${m.path}:${m.line}:${m.column}: ${m.text}`),
        ];
        const skips = describeSkips(walk.skipped);
        if (skips) lines.push(skips);
        const { binary, tooLarge, unreadable } = found.skipped;
        if (binary || tooLarge || unreadable)
          lines.push(
            `not searched: ${binary} binary, ${tooLarge} over ${SEARCH_FILE_BYTES} bytes, ${unreadable} unreadable`,
          );
        return okResult(lines.join("\n"), structured);
      }),
  );
}
