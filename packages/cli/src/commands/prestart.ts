import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isPrdFileName, isPrdFolder, isRunId, loadMcpConfig, type McpServerConfig } from "@meshflow/core";
import { type PrestartedServers, prestartServers } from "@meshflow/mcp/prestart";
import { prdServers } from "./prdServers.js";

/** What of `flow run`'s options decides which servers to start first. */
export interface PrestartOptions {
  mcpConfig?: string;
  story?: string[];
  rerunFailed?: string;
}

/**
 * `flow run <prd.json | folder>`: starts the stdio servers the stories to run name (of every PRD of a
 * folder), before the rest of the command loads, so their start-up overlaps ours; the run's
 * connections take them over. A best guess that never fails the command: `--rerun-failed`, an
 * unreadable PRD or MCP config start nothing here, and the run reports what is wrong as it always
 * does. Close the result when the command ends (a server no connection took is stopped then).
 */
export function prestartFor(file: string | undefined, options: PrestartOptions): PrestartedServers | undefined {
  if (!file || options.rerunFailed) return undefined;
  try {
    const files = isPrdFolder(file)
      ? readdirSync(file)
          .filter(isPrdFileName)
          .map((name) => join(file, name))
      : [file];
    const names = [...new Set(files.flatMap((prd) => prdServers(prd, options.story)))];
    if (!names.length) return undefined;
    const { servers } = loadMcpConfig({ file: options.mcpConfig });
    const configs = names.map((name) => servers.get(name)).filter((c): c is McpServerConfig => c !== undefined);
    return configs.length ? prestartServers(configs) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `flow resume <runId>`: {@link prestartFor} the run's PRD and stories, as its record in the store
 * names them (`mcpConfig` given on the command line wins over the recorded one). Starts nothing when
 * the record cannot be read; the resume reports that as it always does.
 */
export function prestartForResume(
  runId: string,
  options: { store: string; mcpConfig?: string | undefined },
): PrestartedServers | undefined {
  if (!isRunId(runId)) return undefined;
  try {
    const record = JSON.parse(readFileSync(join(options.store, "runs", runId, "run.json"), "utf8")) as {
      prd?: unknown;
      status?: unknown;
      options?: { mcpConfig?: unknown; stories?: unknown };
    };
    // A finished run does not run again (`flow resume` only writes its missing marks, if any).
    if (record.status === "passed" || record.status === "failed") return undefined;
    const recorded = record.options ?? {};
    const mcpConfig = options.mcpConfig ?? (typeof recorded.mcpConfig === "string" ? recorded.mcpConfig : undefined);
    const stories = Array.isArray(recorded.stories)
      ? recorded.stories.filter((s): s is string => typeof s === "string")
      : undefined;
    return typeof record.prd === "string"
      ? prestartFor(record.prd, { ...(mcpConfig ? { mcpConfig } : {}), ...(stories ? { story: stories } : {}) })
      : undefined;
  } catch {
    return undefined;
  }
}
