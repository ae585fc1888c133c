import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** The built `flow` binary the end-to-end tests run. */
export const FLOW_BIN = fileURLToPath(new URL("../../packages/cli/bin/flow.js", import.meta.url));

/** What a `flow` subprocess did. */
export interface FlowResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `flow` binary as a subprocess (`node packages/cli/dist/bin.js …`). */
export function runFlow(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string | undefined>; input?: string } = {},
): Promise<FlowResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FLOW_BIN, ...args], {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, FLOW_MCP_CONFIG: undefined, FLOW_ROUTING: undefined, ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString("utf8");
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? "");
  });
}
