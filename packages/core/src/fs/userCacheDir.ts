import { mkdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/**
 * A folder of meshflow's in the user's cache — `$XDG_CACHE_HOME/meshflow/<name>`, else
 * `~/.cache/meshflow/<name>`, or `dir` when given — created with mode 0700. Undefined when it cannot be
 * made, or belongs to another user, or others may write to it: what is cached there is trusted (run,
 * or read as settings), so nobody else may choose it.
 */
export function userCacheDir(
  name: string,
  options: { dir?: string; env?: NodeJS.ProcessEnv } = {},
): string | undefined {
  const env = options.env ?? process.env;
  const dir = options.dir || join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "meshflow", name);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = statSync(dir);
    if (typeof process.getuid === "function" && (stat.uid !== process.getuid() || (stat.mode & 0o022) !== 0))
      return undefined;
    return dir;
  } catch {
    return undefined;
  }
}
