import { resolve } from "node:path";
import { didYouMean, formatProblem, loadMcpConfig, type McpConfig, MeshflowError } from "@meshflow/core";
import type { ClientPool } from "@meshflow/mcp";
import type { Output } from "./output.js";

/** Where stdio servers' stderr is logged (one `<server>.log` per server): `FLOW_LOG_DIR`, else `.flow/logs`. */
export function serverLogDir(): string {
  return resolve(process.env.FLOW_LOG_DIR ?? ".flow/logs");
}

/** Loads the MCP config; a missing config is a usage error, a broken file an invalid-config error. */
export function requireMcpConfig(file: string | undefined): McpConfig & { file: string } {
  const config = loadMcpConfig({ file });
  if (config.file === undefined)
    throw new MeshflowError(
      "mcp_config_not_found",
      "no MCP config found: pass --mcp-config <file>, set FLOW_MCP_CONFIG, or add ./.mcp.json",
    );
  if (config.problems.length)
    throw new MeshflowError("mcp_config_invalid", config.problems.map((p) => formatProblem(p)).join("\n"));
  return { ...config, file: config.file };
}

/**
 * The servers a command works on: all configured ones (usable and not), or those named by
 * `--server`. An unknown name is a usage error with a suggestion.
 */
export function selectServers(config: McpConfig, wanted: readonly string[] | undefined): string[] {
  const known = [...config.servers.keys(), ...config.invalid.keys()];
  if (!wanted?.length) return known;
  for (const name of wanted)
    if (!known.includes(name))
      throw new MeshflowError(
        "usage",
        `--server: unknown MCP server "${name}"${didYouMean(name, known)} in ${config.file}; configured: ${known.join(", ") || "none"}`,
      );
  return [...new Set(wanted)];
}

/** Prints the config problems of unusable servers among `servers`; returns how many servers were unusable. */
export function printInvalidServers(output: Output, config: McpConfig, servers: readonly string[]): number {
  let count = 0;
  for (const server of servers) {
    const problems = config.invalid.get(server);
    if (!problems) continue;
    count++;
    for (const problem of problems) output.err(formatProblem(problem));
  }
  return count;
}

/** Creates the pool for a command: stderr of stdio servers to the log folder, never the terminal. */
export async function createPool(config: McpConfig, options: { callTimeoutMs?: number } = {}): Promise<ClientPool> {
  const { ClientPool } = await import("@meshflow/mcp");
  return new ClientPool(config.servers, {
    stderrDir: serverLogDir(),
    clientInfo: { name: "meshflow-cli", version: "0.1.0" },
    ...(options.callTimeoutMs !== undefined ? { callTimeoutMs: options.callTimeoutMs } : {}),
  });
}

/** Closes the pool when `work` ends, however it ends. */
export async function withPool<T>(pool: ClientPool, work: (pool: ClientPool) => Promise<T>): Promise<T> {
  try {
    return await work(pool);
  } finally {
    await pool.close();
  }
}
