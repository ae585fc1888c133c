import { readFileSync } from "node:fs";
import { didYouMean, formatJsonPath, formatProblem, MeshflowError, type Problem } from "@meshflow/core";
import { parse as parseYaml } from "yaml";
import { type WorkspaceConfig, WorkspaceConfigSchema, type WorkspaceServerOptions } from "./WorkspaceConfig.js";

/**
 * Reads and validates a workspace server config file (YAML or JSON; JSON is valid YAML).
 * Throws `file_not_found` when it cannot be read and `usage` with `<file>: <json-path>: <message>`
 * lines when it is not valid.
 */
function loadWorkspaceConfig(file: string): WorkspaceConfig {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (cause) {
    throw new MeshflowError("file_not_found", `${file}: cannot read workspace server config`, { cause });
  }
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (cause) {
    throw new MeshflowError("usage", `${file}: $: not valid YAML or JSON: ${String(cause)}`, { cause });
  }
  const parsed = WorkspaceConfigSchema.safeParse(data ?? {});
  if (!parsed.success) {
    const known = Object.keys(WorkspaceConfigSchema.shape);
    const problems: Problem[] = parsed.error.issues.map((issue) => ({
      file,
      path: formatJsonPath(issue.path),
      message:
        issue.code === "unrecognized_keys"
          ? `${issue.message}${issue.keys.map((k) => didYouMean(k, known)).join("")}; known keys: ${known.join(", ")}`
          : issue.message,
      severity: "error",
    }));
    throw new MeshflowError("usage", problems.map(formatProblem).join("\n"), { details: { problems } });
  }
  return parsed.data;
}

/** What a command line gives: a root, an optional config file, and flags that override the file. */
export interface WorkspaceFlags {
  root: string;
  config?: string | undefined;
  /** When given (even empty), replaces the config file's allow list. */
  allow?: readonly string[] | undefined;
  timeoutMs?: number | undefined;
  maxOutputBytes?: number | undefined;
}

/** Merges flags over the config file (flags win, `--allow` replaces the file's list) into server options. */
export function resolveWorkspaceOptions(flags: WorkspaceFlags): WorkspaceServerOptions {
  const config: WorkspaceConfig = flags.config ? loadWorkspaceConfig(flags.config) : {};
  const options: WorkspaceServerOptions = { ...config, root: flags.root };
  if (flags.allow !== undefined) options.allow = flags.allow;
  if (flags.timeoutMs !== undefined) options.timeoutMs = flags.timeoutMs;
  if (flags.maxOutputBytes !== undefined) options.maxOutputBytes = flags.maxOutputBytes;
  return options;
}
