import { resolveWorkspaceOptions, startStdioWorkspaceServer } from "@meshflow/workspace-server";
import { EXIT, type ExitCode } from "../exitCodes.js";
import type { Output } from "../output.js";

/** Options of `flow workspace-server`. */
export interface WorkspaceServerCommandOptions {
  root: string;
  allow?: string[];
  config?: string;
  timeoutMs?: number;
  maxOutputBytes?: number;
}

/** `flow workspace-server`: serves until the client closes stdin or the process is told to stop. */
export async function workspaceServerCommand(
  options: WorkspaceServerCommandOptions,
  output: Output,
): Promise<ExitCode> {
  const serverOptions = resolveWorkspaceOptions({
    root: options.root,
    config: options.config,
    allow: options.allow,
    timeoutMs: options.timeoutMs,
    maxOutputBytes: options.maxOutputBytes,
  });
  const running = await startStdioWorkspaceServer(serverOptions);
  const allow = serverOptions.allow?.length ? serverOptions.allow.join(", ") : "none";
  output.err(`flow workspace-server: serving ${options.root} over stdio (allowed commands: ${allow})`);
  const stop = (): void => void running.close();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    await running.closed;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
  return EXIT.ok;
}
