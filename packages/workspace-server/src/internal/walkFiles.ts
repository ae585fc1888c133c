import { type Dirent, readFileSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { lstat, readdir } from "node:fs/promises";
import path from "node:path";
import ignore, { type Ignore } from "ignore";
import picomatch from "picomatch";
import type { WalkSkipped } from "../WorkspaceResults.js";
import { WorkspaceToolError } from "../WorkspaceToolError.js";
import { patternDetails, patternPreview } from "./patternPreview.js";
import type { ResolvedPath, WorkspaceRoot } from "./WorkspaceRoot.js";

/** Folders never listed, searched or measured, whatever the ignore files say. */
const ALWAYS_SKIPPED = [".git", "node_modules"] as const;
const SKIP: ReadonlySet<string> = new Set(ALWAYS_SKIPPED);

/** How to walk. */
export interface WalkOptions {
  /** Glob over root-relative paths (`src/**\/*.ts`); without a `/` it matches file names (`*.md`). */
  pattern?: string | undefined;
  /** Skip what `.gitignore` files (the root's and every visited folder's) ignore. */
  respectGitignore: boolean;
  /** Most files examined; the walk stops there and reports itself truncated. */
  maxFiles: number;
}

/** A file found by the walk. */
export interface WalkedFile {
  /** Root-relative, `/`-separated. */
  rel: string;
  /** Real absolute path (a symlink inside the root is resolved to its target). */
  abs: string;
  size: number;
}

/** The files under a path, sorted by path. */
export interface WalkResult {
  files: WalkedFile[];
  /** Files looked at (before the pattern). */
  examined: number;
  truncated: boolean;
  skipped: WalkSkipped;
}

interface IgnoreLevel {
  /** Root-relative folder the rules belong to, `""` for the root. */
  base: string;
  rules: Ignore;
}

/** Compiles a glob, or `invalid_pattern`. */
function compileGlob(pattern: string): (rel: string) => boolean {
  try {
    return picomatch(pattern, { dot: true, basename: !pattern.includes("/") });
  } catch (error) {
    throw new WorkspaceToolError(
      "invalid_pattern",
      `glob ${patternPreview(pattern)} is not valid: ${String(error)}`,
      patternDetails(pattern),
    );
  }
}

function loadIgnore(absDir: string, base: string): IgnoreLevel | undefined {
  let text: string;
  try {
    text = readFileSync(path.join(absDir, ".gitignore"), "utf8");
  } catch {
    return undefined;
  }
  return { base, rules: ignore().add(text) };
}

/** Deepest `.gitignore` with an opinion wins, as in git (a `!rule` deeper down re-includes). */
function isIgnored(levels: readonly IgnoreLevel[], rel: string, isDir: boolean): boolean {
  for (let i = levels.length - 1; i >= 0; i--) {
    const level = levels[i] as IgnoreLevel;
    const sub = level.base ? rel.slice(level.base.length + 1) : rel;
    const verdict = level.rules.test(isDir ? `${sub}/` : sub);
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

const join = (dir: string, name: string): string => (dir === "." || dir === "" ? name : `${dir}/${name}`);

/** Where a symlink met in a walk leads, checked through a descriptor opened on it. */
async function symlinkTarget(
  root: WorkspaceRoot,
  link: string,
  rel: string,
): Promise<{ abs: string; isDir: boolean; isFile: boolean; size: number } | "outside" | "unreadable"> {
  let handle: FileHandle;
  try {
    handle = await root.open(link, rel);
  } catch (error) {
    return error instanceof WorkspaceToolError && error.code === "symlink_escape" ? "outside" : "unreadable";
  }
  try {
    const info = await handle.stat();
    const abs = await root.realPathOf(handle, link);
    return { abs, isDir: info.isDirectory(), isFile: info.isFile(), size: info.size };
  } catch {
    return "unreadable";
  } finally {
    await handle.close();
  }
}

/**
 * Lists files under `start` (a file or a folder already confined to the root), depth first in name order:
 * skipping `.git`, `node_modules` and (optionally) gitignored paths, never following a symlink out of the root.
 */
export async function walkFiles(root: WorkspaceRoot, start: ResolvedPath, options: WalkOptions): Promise<WalkResult> {
  const match = options.pattern ? compileGlob(options.pattern) : () => true;
  const skipped: WalkSkipped = {
    gitignored: 0,
    alwaysSkippedFolders: 0,
    symlinksOutsideRoot: 0,
    symlinkedFolders: 0,
    unreadable: 0,
  };
  const files: WalkedFile[] = [];
  let examined = 0;
  let truncated = false;

  const startHandle = await root.open(start.abs, start.rel);
  const startInfo = await startHandle.stat().finally(() => startHandle.close());
  if (startInfo.isFile()) {
    examined = 1;
    if (match(start.rel)) files.push({ rel: start.rel, abs: start.abs, size: startInfo.size });
    return { files, examined, truncated, skipped };
  }

  // The ignore files of the root and of every folder between it and the start apply too.
  const baseLevels: IgnoreLevel[] = [];
  if (options.respectGitignore) {
    const parts = start.rel === "." ? [] : start.rel.split("/");
    for (let depth = 0; depth <= parts.length; depth++) {
      const base = parts.slice(0, depth).join("/");
      const level = loadIgnore(path.join(root.real, ...parts.slice(0, depth)), base);
      if (level) baseLevels.push(level);
    }
  }

  const stack: { abs: string; rel: string; levels: IgnoreLevel[] }[] = [
    { abs: start.abs, rel: start.rel, levels: baseLevels },
  ];
  while (stack.length > 0 && !truncated) {
    const dir = stack.pop() as (typeof stack)[number];
    // The folder is opened and its descriptor checked, then read (and its entries looked up) through that
    // descriptor: a folder swapped for a symlink after the check cannot list what it points to.
    let entries: Dirent[];
    let handle: FileHandle;
    try {
      handle = await root.open(dir.abs, dir.rel);
    } catch (error) {
      if (error instanceof WorkspaceToolError && error.code === "symlink_escape") skipped.symlinksOutsideRoot++;
      else skipped.unreadable++;
      continue;
    }
    const via = root.entriesPath(handle, dir.abs);
    try {
      entries = await readdir(via, { withFileTypes: true });
    } catch {
      skipped.unreadable++;
      await handle.close();
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const levels = [...dir.levels];
    if (options.respectGitignore && dir.abs !== start.abs) {
      const level = loadIgnore(dir.abs, dir.rel === "." ? "" : dir.rel);
      if (level) levels.push(level);
    }
    const subdirs: (typeof stack)[number][] = [];
    for (const entry of entries) {
      const rel = join(dir.rel, entry.name);
      let abs = path.join(dir.abs, entry.name);
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      let size: number | undefined;
      if (entry.isSymbolicLink()) {
        const target = await symlinkTarget(root, `${via}/${entry.name}`, rel);
        if (target === "outside") {
          skipped.symlinksOutsideRoot++;
          continue;
        }
        if (target === "unreadable") {
          skipped.unreadable++;
          continue;
        }
        ({ abs, isDir, isFile, size } = target);
        if (isDir) {
          skipped.symlinkedFolders++;
          continue;
        }
      }
      if (isDir && SKIP.has(entry.name)) {
        skipped.alwaysSkippedFolders++;
        continue;
      }
      if (options.respectGitignore && isIgnored(levels, rel, isDir)) {
        skipped.gitignored++;
        continue;
      }
      if (isDir) {
        subdirs.push({ abs, rel, levels });
        continue;
      }
      if (!isFile) {
        skipped.unreadable++;
        continue;
      }
      if (examined >= options.maxFiles) {
        truncated = true;
        break;
      }
      examined++;
      if (!match(rel)) continue;
      try {
        files.push({ rel, abs, size: size ?? (await lstat(`${via}/${entry.name}`)).size });
      } catch {
        skipped.unreadable++;
      }
    }
    await handle.close();
    // Pushed in reverse so the first folder by name is walked first.
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i] as (typeof stack)[number]);
  }
  files.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  return { files, examined, truncated, skipped };
}
