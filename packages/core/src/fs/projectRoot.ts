import { existsSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

function nearest(start: string, marker: string): string | undefined {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, marker))) return dir;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/**
 * The project a PRD in `prdDir` belongs to: the nearest folder at or above it holding `.git` (the git
 * repository, a worktree's `.git` file included), else the nearest holding `.mcp.json`, else `prdDir`
 * itself. A story's `verify` may run anywhere inside it — a PRD kept in `prd/` runs the project's tests
 * from the root with `"cwd": ".."` — and nowhere outside.
 */
export function projectRoot(prdDir: string): string {
  const start = resolve(prdDir);
  return nearest(start, ".git") ?? nearest(start, ".mcp.json") ?? start;
}

/** True when `path` is `root` or inside it (both absolute, symlinks already resolved by the caller where it matters). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel.split(sep)[0] !== ".." && !isAbsolute(rel));
}
