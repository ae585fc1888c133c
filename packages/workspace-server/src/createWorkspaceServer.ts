import { readFileSync } from "node:fs";
import { MeshflowError, packageFile } from "@meshflow/core";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ArgumentPolicy } from "./ArgumentPolicy.js";
import { AllowList } from "./internal/AllowList.js";
import type { ToolContext } from "./internal/ToolContext.js";
import { registerFileStats } from "./internal/tools/fileStats.js";
import { registerGitDiff } from "./internal/tools/gitDiff.js";
import { registerGitStatus } from "./internal/tools/gitStatus.js";
import { registerListFiles } from "./internal/tools/listFiles.js";
import { registerReadFile } from "./internal/tools/readFile.js";
import { registerRunCommand } from "./internal/tools/runCommand.js";
import { registerSearchText } from "./internal/tools/searchText.js";
import { WorkspaceRoot } from "./internal/WorkspaceRoot.js";
import { WORKSPACE_DEFAULTS, WorkspaceConfigSchema, type WorkspaceServerOptions } from "./WorkspaceConfig.js";

function version(): string {
  const pkg = JSON.parse(readFileSync(packageFile(import.meta.url, "package.json"), "utf8")) as { version: string };
  return pkg.version;
}

function argumentPolicies(given: WorkspaceServerOptions["argumentPolicy"]): Record<string, ArgumentPolicy> {
  const parsed = WorkspaceConfigSchema.shape.argumentPolicy.safeParse(given ? { ...given } : undefined);
  if (!parsed.success)
    throw new MeshflowError("usage", `workspace server option argumentPolicy is invalid: ${parsed.error.message}`);
  return parsed.data ?? {};
}

function positive(name: string, value: number | undefined, fallback: number): number {
  const chosen = value ?? fallback;
  if (!Number.isInteger(chosen) || chosen <= 0)
    throw new MeshflowError("usage", `workspace server option ${name} must be a whole number > 0, got ${value}`);
  return chosen;
}

/**
 * Creates the workspace MCP server for one folder, not yet connected: connect it to a
 * `StdioServerTransport`, or to one end of `InMemoryTransport.createLinkedPair()` in tests and benches.
 * Throws `file_not_found` when the root does not exist and `usage` for an invalid option.
 *
 * @example
 * const server = createWorkspaceServer({ root: "/work/app", allow: ["npm", "node"] });
 * await server.connect(new StdioServerTransport());
 */
export function createWorkspaceServer(options: WorkspaceServerOptions): McpServer {
  const root = WorkspaceRoot.open(options.root);
  const allow = WorkspaceConfigSchema.shape.allow.safeParse(options.allow ? [...options.allow] : []);
  if (!allow.success || !allow.data)
    throw new MeshflowError(
      "usage",
      "workspace server option allow must be a list of non-empty executable names or paths",
    );
  const ctx: ToolContext = {
    root,
    allow: new AllowList(allow.data, root.real, argumentPolicies(options.argumentPolicy)),
    timeoutMs: positive("timeoutMs", options.timeoutMs, WORKSPACE_DEFAULTS.timeoutMs),
    maxOutputBytes: positive("maxOutputBytes", options.maxOutputBytes, WORKSPACE_DEFAULTS.maxOutputBytes),
    maxReadBytes: positive("maxReadBytes", options.maxReadBytes, WORKSPACE_DEFAULTS.maxReadBytes),
    maxFiles: positive("maxFiles", options.maxFiles, WORKSPACE_DEFAULTS.maxFiles),
    killGraceMs: positive("killGraceMs", options.killGraceMs, WORKSPACE_DEFAULTS.killGraceMs),
    env: options.env ?? process.env,
  };
  const server = new McpServer(
    { name: options.name ?? "meshflow-workspace", version: version() },
    {
      capabilities: { tools: {} },
      instructions:
        `Tools for the workspace folder ${root.real}: read (list_files, file_stats, read_file, search_text, ` +
        "git_status, git_diff) and run allowlisted commands (run_command). Paths are relative to that folder " +
        "and cannot leave it.",
    },
  );
  registerRunCommand(server, ctx);
  registerGitStatus(server, ctx);
  registerGitDiff(server, ctx);
  registerListFiles(server, ctx);
  registerFileStats(server, ctx);
  registerReadFile(server, ctx);
  registerSearchText(server, ctx);
  return server;
}
