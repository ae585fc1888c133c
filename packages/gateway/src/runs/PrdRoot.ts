import { existsSync, realpathSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { MeshflowError } from "@meshflow/core";

/**
 * The folder PRD files of the gateway's run tools must lie in: a client names a PRD relative to it,
 * and a run writes to that file and runs its verify commands, so nothing outside it is accepted.
 */
export class PrdRoot {
  /** The folder, absolute with symlinks resolved. */
  readonly root: string;

  constructor(root = ".") {
    this.root = realpathSync(resolve(root));
  }

  /** A PRD path from a client, resolved against the root; it must exist and lie inside it (symlinks resolved). */
  path(path: string): string {
    const absolute = resolve(this.root, path);
    if (!existsSync(absolute))
      throw new MeshflowError("file_not_found", `${path}: no such PRD file (relative paths start at ${this.root})`, {
        details: { file: path },
      });
    const real = realpathSync(absolute);
    const inside = relative(this.root, real);
    if (inside.startsWith("..") || isAbsolute(inside))
      throw new MeshflowError("usage", `${path}: PRD files must lie inside ${this.root}`, { details: { file: path } });
    return real;
  }
}
