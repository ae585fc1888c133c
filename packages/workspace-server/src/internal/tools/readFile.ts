import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { ReadFileResult } from "../../WorkspaceResults.js";
import { WorkspaceToolError } from "../../WorkspaceToolError.js";
import { readLines } from "../readLines.js";
import type { ToolContext } from "../ToolContext.js";
import { guarded, okResult } from "../toolResult.js";

/** `read_file`: a text file (or a line range of it), size-capped. */
export function registerReadFile(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    "read_file",
    {
      title: "Read a workspace file",
      description: [
        "Read a text file of the workspace, whole or a range of lines (`startLine`..`endLine`, 1-based, inclusive).",
        `At most ${ctx.maxReadBytes} bytes are returned per call; when the cap cuts the range, \`truncated\` is true`,
        "and `nextStartLine` says where to continue. `totalLines` is the file's line count.",
        "Binary files are refused (binary_file). The path is relative to the workspace root; paths leaving",
        "the root, also through symlinks, are refused.",
      ].join(" "),
      inputSchema: {
        path: z.string().describe("File path relative to the workspace root"),
        startLine: z.number().int().positive().default(1).describe("First line to return (1-based)"),
        endLine: z.number().int().positive().optional().describe("Last line to return (inclusive); default the end"),
        maxBytes: z
          .number()
          .int()
          .positive()
          .max(ctx.maxReadBytes)
          .optional()
          .describe(`Byte cap below ${ctx.maxReadBytes}`),
      },
      annotations: {
        title: "Read a workspace file",
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    ({ path, startLine, endLine, maxBytes }) =>
      guarded(async () => {
        if (endLine !== undefined && endLine < startLine)
          throw new WorkspaceToolError("invalid_argument", `endLine ${endLine} is before startLine ${startLine}`, {
            startLine,
            endLine,
          });
        const file = await ctx.root.resolveExisting(path, "file");
        // Read through a descriptor whose real path is checked: the path may have changed since resolve.
        const handle = await ctx.root.open(file.abs, file.rel);
        let slice: Awaited<ReturnType<typeof readLines>>;
        try {
          if (!(await handle.stat()).isFile())
            throw new WorkspaceToolError("not_a_file", `${JSON.stringify(path)} is not a file`, {
              path,
              root: ctx.root.real,
            });
          slice = await readLines(handle, startLine, endLine ?? Number.POSITIVE_INFINITY, maxBytes ?? ctx.maxReadBytes);
        } finally {
          await handle.close();
        }
        if (slice.binary)
          throw new WorkspaceToolError("binary_file", `${file.rel} is a binary file; read_file returns text only`, {
            path: file.rel,
          });
        if (startLine > Math.max(slice.totalLines, 1))
          throw new WorkspaceToolError(
            "invalid_argument",
            `startLine ${startLine} is past the end of ${file.rel} (${slice.totalLines} lines)`,
            { path: file.rel, startLine, totalLines: slice.totalLines },
          );
        const more = slice.endLine < Math.min(endLine ?? slice.totalLines, slice.totalLines);
        const structured: ReadFileResult = {
          path: file.rel,
          content: slice.content,
          startLine: slice.startLine,
          endLine: slice.endLine,
          totalLines: slice.totalLines,
          bytes: slice.bytes,
          truncated: slice.truncated,
          nextStartLine: more ? slice.endLine + 1 : null,
        };
        const note = slice.truncated
          ? `\n[… cut at ${maxBytes ?? ctx.maxReadBytes} bytes after line ${slice.endLine} of ${slice.totalLines}; continue with startLine ${slice.endLine + 1} …]`
          : "";
        return okResult(slice.content + note, structured);
      }),
  );
}
