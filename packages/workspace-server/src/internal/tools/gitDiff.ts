import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { GitDiffFile, GitDiffResult } from "../../WorkspaceResults.js";
import { WorkspaceToolError } from "../../WorkspaceToolError.js";
import { gitOutput, repoInfo, runGit } from "../git.js";
import type { ToolContext } from "../ToolContext.js";
import { guarded, okResult } from "../toolResult.js";

function parseNumstat(text: string): GitDiffFile[] {
  const files: GitDiffFile[] = [];
  const records = text.split("\0");
  for (let i = 0; i < records.length; i++) {
    const record = records[i] ?? "";
    const match = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(record);
    if (!match) continue;
    const [, added = "-", deleted = "-", rest = ""] = match;
    // A rename is "<a>\t<d>\t" followed by two more records: the old path and the new one.
    let path = rest;
    if (rest === "") {
      i += 2;
      path = records[i] ?? "";
    }
    const binary = added === "-";
    files.push({ path, binary, additions: binary ? null : Number(added), deletions: binary ? null : Number(deleted) });
  }
  return files;
}

/** `git_diff`: unstaged, staged or against-a-revision changes under the root, as a capped patch plus per-file counts. */
export function registerGitDiff(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    "git_diff",
    {
      title: "Git diff of the workspace",
      description: [
        "Show changes under the workspace root as a unified diff plus per-file added/deleted line counts.",
        "By default: unstaged changes (work tree vs index). `staged: true`: staged changes (index vs HEAD).",
        '`base`: compare the work tree (or, with `staged`, the index) against a revision such as "HEAD",',
        '"main" or a commit id. `paths` limits the diff to files or folders relative to the root.',
        "Untracked files are not in a diff: git_status lists them.",
        `The patch is cut after ${ctx.maxOutputBytes} bytes with a marker; the per-file counts are always complete.`,
        "Read-only: no program named by the repository's config runs (external diff, textconv, filters, hooks, fsmonitor, fetches),",
        "submodules are not entered, and a repository pointing git outside the root fails with repo_unsafe.",
      ].join(" "),
      inputSchema: {
        staged: z.boolean().default(false).describe("Diff the index (staged changes) instead of the work tree"),
        base: z.string().min(1).optional().describe('Revision to compare against, e.g. "HEAD~1" or "main"'),
        paths: z.array(z.string()).max(200).default([]).describe("Files or folders relative to the root"),
        contextLines: z.number().int().min(0).max(100).default(3).describe("Unchanged lines around each change"),
      },
      annotations: {
        title: "Git diff of the workspace",
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    ({ staged, base, paths, contextLines }, extra) =>
      guarded(async () => {
        const signal = extra.signal;
        const { overrides } = await repoInfo(ctx, signal);
        const pathspecs: string[] = [];
        for (const p of paths) pathspecs.push((await ctx.root.resolve(p)).rel);
        if (pathspecs.length === 0) pathspecs.push(".");

        const revision: string[] = [];
        if (base !== undefined) {
          if (base.startsWith("-"))
            throw new WorkspaceToolError(
              "invalid_argument",
              `base ${JSON.stringify(base)} is not a revision (it starts with '-')`,
              {
                base,
              },
            );
          const check = await runGit(
            ctx,
            ["rev-parse", "--verify", "--quiet", "--end-of-options", `${base}^{commit}`],
            { signal, overrides },
          );
          if (check.exitCode !== 0)
            throw new WorkspaceToolError(
              "revision_not_found",
              `base ${JSON.stringify(base)} is not a commit in this repository`,
              {
                base,
              },
            );
          revision.push(check.stdout.text.trim());
        }
        const common = [
          "diff",
          "--relative",
          "--no-ext-diff",
          "--no-textconv",
          "--ignore-submodules=all",
          "--no-color",
          ...(staged ? ["--cached"] : []),
        ];
        const numstat = await gitOutput(ctx, [...common, "--numstat", "-z", ...revision, "--", ...pathspecs], {
          maxBytes: 16 * 1024 * 1024,
          signal,
          overrides,
        });
        const patch = await gitOutput(ctx, [...common, `--unified=${contextLines}`, ...revision, "--", ...pathspecs], {
          signal,
          overrides,
        });
        const files = parseNumstat(numstat.text);
        const marker = patch.truncated
          ? `\n[… diff truncated: ${patch.bytes - Buffer.byteLength(patch.text)} more bytes of ${patch.bytes}; narrow it with paths …]`
          : "";
        const structured: GitDiffResult = {
          staged,
          base: base ?? null,
          files,
          totals: {
            files: files.length,
            additions: files.reduce((n, f) => n + (f.additions ?? 0), 0),
            deletions: files.reduce((n, f) => n + (f.deletions ?? 0), 0),
          },
          patch: patch.text + marker,
          patchBytes: patch.bytes,
          truncated: patch.truncated,
        };
        const what = staged ? "staged changes" : "unstaged changes";
        const against = base ? ` against ${base}` : "";
        const header = files.length
          ? `${files.length} file(s) changed (${what}${against}), +${structured.totals.additions} -${structured.totals.deletions}`
          : `no ${what}${against} under the selected paths`;
        return okResult(files.length ? `${header}\n${structured.patch}` : header, structured);
      }),
  );
}
