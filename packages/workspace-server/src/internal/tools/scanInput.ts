import { z } from "zod";
import type { WalkSkipped } from "../../WorkspaceResults.js";

/** Arguments shared by the tools that walk a folder: where, which files, whether .gitignore applies. */
export function scanInput() {
  return {
    path: z.string().default(".").describe("Folder (or single file) relative to the workspace root; default the root"),
    pattern: z
      .string()
      .min(1)
      .optional()
      .describe('Glob over root-relative paths, e.g. "src/**/*.ts"; without "/" it matches file names, e.g. "*.md"'),
    respectGitignore: z.boolean().default(true).describe("Skip files ignored by .gitignore (default true)"),
  };
}

/** One line saying what a walk left out, or an empty string when nothing was. */
export function describeSkips(skipped: WalkSkipped): string {
  const parts: string[] = [];
  if (skipped.alwaysSkippedFolders) parts.push(`${skipped.alwaysSkippedFolders} .git/node_modules folder(s)`);
  if (skipped.gitignored) parts.push(`${skipped.gitignored} gitignored path(s)`);
  if (skipped.symlinksOutsideRoot) parts.push(`${skipped.symlinksOutsideRoot} symlink(s) pointing outside the root`);
  if (skipped.symlinkedFolders) parts.push(`${skipped.symlinkedFolders} symlinked folder(s)`);
  if (skipped.unreadable) parts.push(`${skipped.unreadable} unreadable entr(ies)`);
  return parts.length ? `skipped: ${parts.join(", ")}` : "";
}
