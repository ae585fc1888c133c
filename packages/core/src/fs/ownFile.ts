import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, writeSync } from "node:fs";
import { MeshflowError } from "../errors/MeshflowError.js";

/** Mode of the files meshflow writes beside the user's: they may hold tool output, so owner-only. */
const OWN_FILE_MODE = 0o600;
/** Mode of the folders meshflow creates for its own files. */
const OWN_DIR_MODE = 0o700;

function unsafe(path: string, found: string, cause?: unknown): MeshflowError {
  return new MeshflowError(
    "unsafe_path",
    `${path} is ${found}; meshflow writes its own files only as plain files and folders of their own, never through a link — remove it`,
    { cause, details: { path } },
  );
}

/**
 * Opens `file` for appending, creating it owner-only (0600), without following a symbolic link at its
 * name: a repository that plants its progress log or memory file as a link to `~/.bashrc` must not get
 * meshflow to write there. A link, a file with other hard links, or anything but a regular file (a FIFO
 * would block the run) is refused with `unsafe_path` naming it. Returns the descriptor.
 */
export function openOwnFileForAppend(file: string): number {
  let fd: number;
  try {
    fd = openSync(
      file,
      // O_NONBLOCK: opening a planted FIFO fails (ENXIO) instead of waiting for a reader.
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      OWN_FILE_MODE,
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw unsafe(file, "a symbolic link", error);
    if (code === "ENXIO") throw unsafe(file, "a FIFO", error);
    throw error;
  }
  const stat = fstatSync(fd);
  // A hard link to a file elsewhere is as bad as a symbolic one, and cannot be told from the name.
  const found = !stat.isFile() ? "not a regular file" : stat.nlink > 1 ? `a file with ${stat.nlink} hard links` : "";
  if (found) {
    closeSync(fd);
    throw unsafe(file, found);
  }
  return fd;
}

/** Appends `text` to `file` through {@link openOwnFileForAppend} (its folder must exist). */
export function appendOwnFile(file: string, text: string): void {
  const fd = openOwnFileForAppend(file);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes sure `dir` is a real folder (created with its missing parents, owner-only, when absent) and not
 * a symbolic link: files meshflow then creates in it cannot land outside through a planted
 * `archive/` or `.flow/memory` link. Throws `unsafe_path` naming the folder otherwise.
 */
export function ensureOwnDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: OWN_DIR_MODE });
  } catch (error) {
    // A dangling link or a file in its place: told below by what it is.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const stat = lstatSync(dir);
  if (stat.isSymbolicLink()) throw unsafe(dir, "a symbolic link");
  if (!stat.isDirectory()) throw unsafe(dir, "not a folder");
}
