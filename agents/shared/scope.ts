import { z } from "@meshflow/runtime";
import picomatch from "picomatch";

/** Folders no check looks into, whatever a story's settings say. */
const ALWAYS_EXCLUDED = ["**/node_modules/**", "**/.git/**", ".flow/**"] as const;

/** Which files of the workspace a check looks at: settings every file-reading specialist shares. */
export const ScopeSchema = z.strictObject({
  paths: z
    .array(z.string().min(1))
    .min(1)
    .describe('Folders or files to examine, relative to the workspace root ("." for all of it)'),
  include: z.array(z.string().min(1)).min(1).describe("Globs over root-relative paths a file must match"),
  exclude: z.array(z.string().min(1)).describe("Globs of files left out"),
});

/** A check's scope (`paths`, `include`, `exclude`). */
export type Scope = z.infer<typeof ScopeSchema>;

/** Normalises a root-relative path: forward slashes, no leading `./`. */
export function normalizePath(path: string): string {
  const forward = path.replace(/\\/g, "/").replace(/^(\.\/)+/, "");
  return forward === "" ? "." : forward;
}

/** A predicate over root-relative paths: inside one of `paths`, matching `include`, not `exclude`. */
export function scopeMatcher(scope: Scope): (path: string) => boolean {
  const options = { dot: true };
  const included = picomatch(scope.include, options);
  const excluded = picomatch([...scope.exclude, ...ALWAYS_EXCLUDED], options);
  const roots = scope.paths.map(normalizePath);
  const within = (path: string) =>
    roots.some((root) => root === "." || path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`));
  return (raw) => {
    const path = normalizePath(raw);
    return within(path) && included(path) && !excluded(path);
  };
}
