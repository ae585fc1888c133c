import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { FileStatsResult } from "../../WorkspaceResults.js";
import { type FileMeasure, measureFile } from "../measureFile.js";
import type { ToolContext } from "../ToolContext.js";
import { guarded, okResult } from "../toolResult.js";
import { walkFiles } from "../walkFiles.js";
import { describeSkips, scanInput } from "./scanInput.js";

type Measured = { path: string } & FileMeasure;

const BATCH = 16;

const ORDER: Record<"path" | "lines" | "bytes", (a: Measured, b: Measured) => number> = {
  path: (a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
  lines: (a, b) => (b.lines ?? -1) - (a.lines ?? -1) || ORDER.path(a, b),
  bytes: (a, b) => b.bytes - a.bytes || ORDER.path(a, b),
};

/** Measures one file through a checked descriptor, so a swapped symlink cannot make it measure a file outside. */
async function measureConfined(ctx: ToolContext, abs: string, rel: string): Promise<FileMeasure> {
  const handle = await ctx.root.open(abs, rel);
  try {
    return await measureFile(handle);
  } finally {
    await handle.close();
  }
}

/** `file_stats`: sizes and line counts per file, with totals, for a folder or a glob. */
export function registerFileStats(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    "file_stats",
    {
      title: "Measure workspace files",
      description: [
        "Measure files of the workspace: size in bytes and line count of each file (null for binary files),",
        "plus totals over every matched file. Selects files like list_files (`path`, glob `pattern`,",
        '`respectGitignore`; .git and node_modules always skipped). `sortBy` "lines" or "bytes" lists the',
        "largest first, so `limit` gives the top N; totals always cover all matched files.",
        `At most ${ctx.maxFiles} files are examined; \`truncated\` says when there were more.`,
      ].join(" "),
      inputSchema: {
        ...scanInput(),
        sortBy: z.enum(["path", "lines", "bytes"]).default("path").describe("Order of the listed files"),
        limit: z
          .number()
          .int()
          .positive()
          .max(ctx.maxFiles)
          .default(Math.min(1000, ctx.maxFiles))
          .describe("Most files listed"),
      },
      annotations: {
        title: "Measure workspace files",
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    ({ path, pattern, respectGitignore, sortBy, limit }) =>
      guarded(async () => {
        const start = await ctx.root.resolveExisting(path, "any");
        const walk = await walkFiles(ctx.root, start, { pattern, respectGitignore, maxFiles: ctx.maxFiles });
        const measured: Measured[] = [];
        let unreadable = 0;
        for (let i = 0; i < walk.files.length; i += BATCH) {
          const batch = walk.files.slice(i, i + BATCH);
          const results = await Promise.allSettled(batch.map((f) => measureConfined(ctx, f.abs, f.rel)));
          results.forEach((result, j) => {
            if (result.status === "fulfilled")
              measured.push({ path: (batch[j] as (typeof batch)[number]).rel, ...result.value });
            else unreadable++;
          });
        }
        measured.sort(ORDER[sortBy]);
        const totals = {
          files: measured.length,
          bytes: measured.reduce((n, f) => n + f.bytes, 0),
          lines: measured.reduce((n, f) => n + (f.lines ?? 0), 0),
          binaryFiles: measured.filter((f) => f.binary).length,
        };
        const files = measured.slice(0, limit);
        const skipped = { ...walk.skipped, unreadable: walk.skipped.unreadable + unreadable };
        const truncated = walk.truncated;
        const structured: FileStatsResult = {
          path: start.rel,
          pattern: pattern ?? null,
          sortBy,
          files,
          listed: files.length,
          totals,
          truncated,
          skipped,
        };
        const lines = [
          `${totals.files} file(s) under ${start.rel}${pattern ? ` matching ${pattern}` : ""}: ${totals.lines} lines, ${totals.bytes} bytes` +
            `${totals.binaryFiles ? `, ${totals.binaryFiles} binary` : ""}${truncated ? " (walk truncated)" : ""}`,
          "lines\tbytes\tpath",
          ...files.map((f) => `${f.lines ?? "binary"}\t${f.bytes}\t${f.path}`),
        ];
        if (files.length < measured.length)
          lines.push(`[… ${measured.length - files.length} more file(s) not listed …]`);
        const skips = describeSkips(skipped);
        if (skips) lines.push(skips);
        return okResult(lines.join("\n"), structured);
      }),
  );
}
