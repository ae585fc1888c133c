import { realpathSync, statSync } from "node:fs";
import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { MeshflowError } from "@meshflow/core";
import { WorkspaceToolError } from "../WorkspaceToolError.js";

/** A path argument after the checks: inside the root, symlinks resolved. */
export interface ResolvedPath {
  /** Real absolute path (symlinks resolved) when it exists, else the lexical absolute path. */
  abs: string;
  /** Path relative to the root, `/`-separated, `.` for the root itself. */
  rel: string;
  /** True when something exists there. */
  exists: boolean;
}

function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

function toPosix(rel: string): string {
  return rel === "" ? "." : rel.split(path.sep).join("/");
}

function errnoCode(error: unknown): string | undefined {
  return error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : undefined;
}

/**
 * The workspace root and the one place path arguments are confined to it: `..` that leaves the root,
 * absolute paths elsewhere, and symlinks whose target is outside (checked with realpath) are refused.
 */
export class WorkspaceRoot {
  /** The root as given, resolved to an absolute path (symlinks kept). */
  readonly given: string;
  /** The root with symlinks resolved: what every check compares against. */
  readonly real: string;

  private constructor(given: string, real: string) {
    this.given = given;
    this.real = real;
  }

  /** Opens a root folder; throws `file_not_found` when it is missing and `usage` when it is not a folder. */
  static open(root: string): WorkspaceRoot {
    const given = path.resolve(root);
    let real: string;
    try {
      real = realpathSync(given);
    } catch (cause) {
      throw new MeshflowError("file_not_found", `workspace root ${given} does not exist`, { cause });
    }
    if (!statSync(real).isDirectory()) throw new MeshflowError("usage", `workspace root ${given} is not a folder`);
    return new WorkspaceRoot(given, real);
  }

  /** `/`-separated path of `abs` relative to the real root. */
  relative(abs: string): string {
    return toPosix(path.relative(this.real, abs));
  }

  /** True when the absolute path `abs` is the root or below it (lexically). */
  contains(abs: string): boolean {
    return isInside(this.real, abs);
  }

  /** Resolves a path argument against the root, or throws a {@link WorkspaceToolError} saying why it is refused. */
  async resolve(input: string): Promise<ResolvedPath> {
    const details = { path: input, root: this.real };
    if (input.length === 0)
      throw new WorkspaceToolError("path_invalid", "path is empty: use '.' for the root", details);
    if (input.includes("\0"))
      throw new WorkspaceToolError("path_invalid", `path ${JSON.stringify(input)} contains a NUL byte`, details);

    let lexical: string;
    if (path.isAbsolute(input)) {
      const abs = path.resolve(input);
      if (isInside(this.real, abs)) lexical = abs;
      else if (isInside(this.given, abs)) lexical = path.join(this.real, path.relative(this.given, abs));
      else
        throw new WorkspaceToolError(
          "path_outside_root",
          `absolute path ${JSON.stringify(input)} is outside the workspace root ${this.real}; use a path relative to the root`,
          details,
        );
    } else {
      lexical = path.resolve(this.real, input);
      if (!isInside(this.real, lexical))
        throw new WorkspaceToolError(
          "path_traversal",
          `path ${JSON.stringify(input)} leaves the workspace root ${this.real} through '..'; paths must stay inside the root`,
          details,
        );
    }

    const { real, exists } = await this.realOf(lexical);
    if (!isInside(this.real, real))
      throw new WorkspaceToolError(
        "symlink_escape",
        `path ${JSON.stringify(input)} resolves through a symlink to ${real}, outside the workspace root ${this.real}`,
        { ...details, target: real },
      );
    return { abs: exists ? real : lexical, rel: this.relative(lexical), exists };
  }

  /** Resolves a path argument that must name an existing file, folder, or (`any`) either. */
  async resolveExisting(input: string, kind: "file" | "directory" | "any"): Promise<ResolvedPath> {
    const resolved = await this.resolve(input);
    if (!resolved.exists)
      throw new WorkspaceToolError(
        "not_found",
        `${JSON.stringify(input)} does not exist in the workspace root ${this.real}`,
        {
          path: input,
          root: this.real,
        },
      );
    const info = await stat(resolved.abs);
    if (kind === "file" && !info.isFile())
      throw new WorkspaceToolError("not_a_file", `${JSON.stringify(input)} is not a file`, {
        path: input,
        root: this.real,
      });
    if (kind === "directory" && !info.isDirectory())
      throw new WorkspaceToolError("not_a_directory", `${JSON.stringify(input)} is not a folder`, {
        path: input,
        root: this.real,
      });
    return resolved;
  }

  /** Real path of `lexical`; for a path that does not exist yet, the real path of its nearest existing ancestor joined with the rest. */
  private async realOf(lexical: string): Promise<{ real: string; exists: boolean }> {
    try {
      return { real: await realpath(lexical), exists: true };
    } catch (error) {
      const code = errnoCode(error);
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
    }
    const parent = path.dirname(lexical);
    if (parent === lexical) return { real: lexical, exists: false };
    const up = await this.realOf(parent);
    return { real: path.join(up.real, path.basename(lexical)), exists: false };
  }
}
