import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { FLOW_BIN, flowEnv } from "./runFlow.js";

/** A `flow console` subprocess. */
export interface FlowConsole {
  url: string;
  child: ChildProcessWithoutNullStreams;
  stderr(): string;
  /** SIGTERM, then waits for the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `flow console --port 0 --json <args>` in `cwd` and waits for the address it prints. */
export async function startFlowConsole(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string | undefined> },
): Promise<FlowConsole> {
  const child = spawn(process.execPath, [FLOW_BIN, "console", "--port", "0", "--json", ...args], {
    cwd: options.cwd,
    env: flowEnv(options.env),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString("utf8");
  });
  const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString("utf8");
      try {
        resolve((JSON.parse(stdout) as { url: string }).url);
      } catch {
        // Not all of it yet.
      }
    });
    void exit.then((code) => reject(new Error(`flow console exited ${code}: ${stderr}`)));
  });
  return {
    url,
    child,
    stderr: () => stderr,
    async stop() {
      child.kill("SIGTERM");
      return exit;
    },
  };
}
