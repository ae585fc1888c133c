import { constants, realpathSync, statSync } from "node:fs";
import { type FileHandle, open, readlink, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { MeshflowError } from "@meshflow/core";
import { WorkspaceToolError } from "../WorkspaceToolError.js";
import { errnoCode, fromErrno } from "./errnoError.js";

/** Longest path argument accepted, in UTF-8 bytes (Linux's PATH_MAX); longer ones are refused before any I/O. */
const MAX_PATH_BYTES = 4096;
/** Most `/`-separated parts a path argument may have; deeper ones are refused before any I/O. */
const MAX_PATH_PARTS = 256;

/** Where an open descriptor's real path can be read back: `/proc/self/fd/<n>` on Linux. */
const FD_LINKS = process.platform === "linux" ? "/proc/self/fd" : undefined;
/** Never blocks on a FIFO or a device; never makes a terminal ours. */
const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

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
    const bytes = Buffer.byteLength(input);
    if (bytes > MAX_PATH_BYTES)
      throw new WorkspaceToolError(
        "path_invalid",
        `path is ${bytes} bytes long; at most ${MAX_PATH_BYTES} are accepted`,
        { path: `${input.slice(0, 200)}…`, root: this.real, bytes, maxBytes: MAX_PATH_BYTES },
      );
    const parts = input.split(/[\\/]+/).length;
    if (parts > MAX_PATH_PARTS)
      throw new WorkspaceToolError("path_invalid", `path has ${parts} parts; at most ${MAX_PATH_PARTS} are accepted`, {
        path: `${input.slice(0, 200)}…`,
        root: this.real,
        parts,
        maxParts: MAX_PATH_PARTS,
      });

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
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(resolved.abs);
    } catch (error) {
      throw fromErrno(error, input) ?? error;
    }
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

  /**
   * Opens `abs` for reading and checks the descriptor itself: its real path must be inside the root.
   * Checking the path and opening it later would read whatever a symlink swapped in between points to;
   * the descriptor cannot change, so what is read is what was checked. Folders open too (for walks).
   */
  async open(abs: string, shown: string = this.relative(abs)): Promise<FileHandle> {
    let handle: FileHandle;
    try {
      handle = await open(abs, READ_FLAGS);
    } catch (error) {
      throw fromErrno(error, shown) ?? error;
    }
    try {
      const real = await this.descriptorPath(handle, abs);
      if (!isInside(this.real, real))
        throw new WorkspaceToolError(
          "symlink_escape",
          `path ${JSON.stringify(shown)} led to ${real} when opened, outside the workspace root ${this.real}`,
          { path: shown, root: this.real, target: real },
        );
      return handle;
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /**
   * The path a folder's entries can be read through without following anything again: on Linux
   * `/proc/self/fd/<n>` of the checked descriptor, elsewhere the folder's path (see the README).
   */
  entriesPath(handle: FileHandle, abs: string): string {
    return FD_LINKS ? `${FD_LINKS}/${handle.fd}` : abs;
  }

  /** The real path of a descriptor returned by {@link open} (`abs` is the path it was opened by). */
  realPathOf(handle: FileHandle, abs: string): Promise<string> {
    return this.descriptorPath(handle, abs);
  }

  /** The real path of an open descriptor. */
  private async descriptorPath(handle: FileHandle, abs: string): Promise<string> {
    if (FD_LINKS) return readlink(`${FD_LINKS}/${handle.fd}`);
    // Without /proc: the path's real path now must still be the very file that was opened.
    const real = await realpath(abs);
    const [opened, named] = await Promise.all([handle.stat(), stat(real)]);
    if (opened.dev !== named.dev || opened.ino !== named.ino)
      throw new WorkspaceToolError("symlink_escape", `path ${JSON.stringify(abs)} changed while it was opened`, {
        path: abs,
        root: this.real,
      });
    return real;
  }

  /**
   * Real path of `lexical`; for a path that does not exist yet, the real path of its nearest existing
   * ancestor joined with the rest. A loop, not recursion: the depth is bounded by {@link MAX_PATH_PARTS}.
   */
  private async realOf(lexical: string): Promise<{ real: string; exists: boolean }> {
    const rest: string[] = [];
    let at = lexical;
    for (;;) {
      try {
        const real = await realpath(at);
        return { real: path.join(real, ...rest), exists: rest.length === 0 };
      } catch (error) {
        const code = errnoCode(error);
        if (code !== "ENOENT" && code !== "ENOTDIR") throw fromErrno(error, this.relative(lexical)) ?? error;
      }
      const parent = path.dirname(at);
      if (parent === at) return { real: lexical, exists: false };
      rest.unshift(path.basename(at));
      at = parent;
    }
  }
}
