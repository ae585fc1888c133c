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

/** The environment a `flow` subprocess of a test gets: this one without the user's flow settings, plus `extra`. */
export function flowEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return { ...process.env, FLOW_MCP_CONFIG: undefined, FLOW_ROUTING: undefined, ...extra };
}

/** Runs `node <args…>` to its end, stdin closed at once, and collects its output. */
export function runNode(
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; input?: string },
): Promise<FlowResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
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

/** Runs the real `flow` binary as a subprocess (`node packages/cli/bin/flow.js …`). */
export function runFlow(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string | undefined>; input?: string } = {},
): Promise<FlowResult> {
  return runNode([FLOW_BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: flowEnv(options.env),
    ...(options.input !== undefined ? { input: options.input } : {}),
  });
}
