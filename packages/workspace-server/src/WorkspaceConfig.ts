import { z } from "zod";
import { type ArgumentPolicy, ArgumentPolicySchema } from "./ArgumentPolicy.js";

/** Defaults applied when neither the config file nor a flag sets a limit. */
export const WORKSPACE_DEFAULTS = {
  timeoutMs: 60_000,
  maxOutputBytes: 64 * 1024,
  maxReadBytes: 256 * 1024,
  maxFiles: 20_000,
  killGraceMs: 2_000,
} as const;

const positiveInt = (what: string) => z.number().int(`${what} must be a whole number`).positive(`${what} must be > 0`);

/**
 * The workspace server's config file (JSON or YAML). Unknown keys are errors, so a misspelt limit never
 * silently falls back to its default.
 *
 * @example
 * # workspace-server.yaml
 * allow: [node, npm, git]
 * timeoutMs: 120000
 * maxOutputBytes: 65536
 */
export const WorkspaceConfigSchema = z.strictObject({
  /** Executables `run_command` may start: bare names are looked up on PATH, paths are resolved against the root. */
  allow: z.array(z.string().min(1, "an allowed executable is a non-empty name or path")).optional(),
  /**
   * Per allowed executable (its entry, or the file name of a path entry): allowed subcommands, denied flags.
   * Replaces the built-in policy of that name (`DEFAULT_ARGUMENT_POLICIES`: git, npm, find); `{}` lifts it.
   */
  argumentPolicy: z.record(z.string().min(1), ArgumentPolicySchema).optional(),
  /** Longest a command (and each git call or search) may run before its process tree is killed. */
  timeoutMs: positiveInt("timeoutMs").optional(),
  /** Bytes kept of each of stdout and stderr (the tail), and of a diff. */
  maxOutputBytes: positiveInt("maxOutputBytes").optional(),
  /** Bytes `read_file` returns at most in one call. */
  maxReadBytes: positiveInt("maxReadBytes").optional(),
  /** Files a listing, stats or search call visits at most. */
  maxFiles: positiveInt("maxFiles").optional(),
});

/** A parsed config file. */
export type WorkspaceConfig = z.infer<typeof WorkspaceConfigSchema>;

/** Everything {@link createWorkspaceServer} needs; only `root` is required. */
export interface WorkspaceServerOptions {
  /** The workspace folder; every path argument is confined to it (after resolving symlinks). */
  root: string;
  /** Executables `run_command` may start. Empty (the default) refuses every command. */
  allow?: readonly string[];
  /** Argument policies by executable, over `DEFAULT_ARGUMENT_POLICIES`. */
  argumentPolicy?: Readonly<Record<string, ArgumentPolicy>>;
  timeoutMs?: number;
  maxOutputBytes?: number;
  maxReadBytes?: number;
  maxFiles?: number;
  /** Between SIGTERM and SIGKILL when a command times out or is cancelled. */
  killGraceMs?: number;
  /** Environment of started commands; defaults to the server's own. */
  env?: NodeJS.ProcessEnv;
  /** Server name sent in the MCP `initialize` handshake. */
  name?: string;
}
