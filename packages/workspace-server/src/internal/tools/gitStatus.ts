import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { GitStatusResult } from "../../WorkspaceResults.js";
import { gitOutput, repoInfo } from "../git.js";
import { parseGitStatus } from "../parseGitStatus.js";
import type { ToolContext } from "../ToolContext.js";
import { guarded, okResult } from "../toolResult.js";

/** Status output is read whole (its header comes first); this bounds it far above any listing we return. */
const STATUS_READ_BYTES = 16 * 1024 * 1024;

/** `git_status`: branch, upstream, and changed/untracked paths under the root. */
export function registerGitStatus(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    "git_status",
    {
      title: "Git status of the workspace",
      description: [
        "Show the git state of the workspace: current branch (null when detached), last commit, upstream with",
        "ahead/behind counts, and every changed path under the workspace root — staged and unstaged changes,",
        "renames, conflicts and untracked files — with paths relative to the root.",
        "`index` and `worktree` are git's status letters (M modified, A added, D deleted, R renamed, . unchanged).",
        `At most ${ctx.maxFiles} entries are listed. Read-only: git is run without refreshing the index.`,
        "Submodules are not entered (their changes are not listed).",
        "Fails with not_a_git_repo when the root is not inside a git repository, and with repo_unsafe when the",
        "repository points git outside the root (core.worktree, a .git file naming another repository).",
      ].join(" "),
      inputSchema: {},
      annotations: {
        title: "Git status of the workspace",
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    (_args, extra) =>
      guarded(async () => {
        const repo = await repoInfo(ctx, extra.signal);
        const out = await gitOutput(
          ctx,
          ["status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all", "--ignore-submodules=all", "--", "."],
          { maxBytes: STATUS_READ_BYTES, signal: extra.signal, overrides: repo.overrides },
        );
        const status = parseGitStatus(out.text, repo.prefix);
        const truncated = out.truncated || status.entries.length > ctx.maxFiles;
        const entries = status.entries.slice(0, ctx.maxFiles);
        const structured: GitStatusResult = {
          ...status,
          entries,
          clean: status.entries.length === 0,
          truncated,
          repository: repo.toplevel,
          rootInRepository: repo.prefix || ".",
        };
        const head = status.branch ? `On branch ${status.branch}` : "HEAD detached";
        const upstream = status.upstream
          ? ` (upstream ${status.upstream}, ahead ${status.ahead ?? 0}, behind ${status.behind ?? 0})`
          : "";
        const commit = status.commit ? `, at ${status.commit.slice(0, 12)}` : ", no commits yet";
        const lines = [`${head}${commit}${upstream}`];
        if (structured.clean) lines.push("nothing changed under the workspace root");
        for (const entry of entries) {
          const code = entry.status === "untracked" ? "??" : `${entry.index}${entry.worktree}`;
          lines.push(`${code} ${entry.origPath ? `${entry.origPath} -> ` : ""}${entry.path}`);
        }
        if (truncated) lines.push(`[… listing truncated at ${entries.length} entries …]`);
        return okResult(lines.join("\n"), structured);
      }),
  );
}
