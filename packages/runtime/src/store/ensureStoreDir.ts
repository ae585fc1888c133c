import { lstatSync, realpathSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { ensureOwnDir, MeshflowError } from "@meshflow/core";

/**
 * Makes sure `<root>/<sub…>` is a folder of the run store's own (created owner-only when absent) and
 * returns it. The store's root may be a link only to somewhere inside the folder that holds it (a
 * repository planting `.flow` → `~/somewhere` would have runs, memory and locks written there); each
 * folder below it must be a real folder, never a link. Throws `unsafe_path` naming the folder.
 */
export function ensureStoreDir(root: string, ...sub: string[]): string {
  // A root linked to a folder beside it (`.flow` → `.flow-main`) is the user's choice and kept.
  if (!linkedInside(root)) ensureOwnDir(root);
  let dir = root;
  for (const part of sub) {
    dir = join(dir, part);
    ensureOwnDir(dir);
  }
  return dir;
}

/** True when `root` is a link into its own parent folder; throws when it is a link leading elsewhere. */
function linkedInside(root: string): boolean {
  let isLink: boolean;
  try {
    isLink = lstatSync(root).isSymbolicLink();
  } catch {
    return false; // Not there yet: created as a plain folder.
  }
  if (!isLink) return false;
  const project = dirname(root);
  let real: string;
  try {
    real = realpathSync(root);
  } catch (error) {
    throw new MeshflowError("unsafe_path", `the run store ${root} is a link that leads nowhere`, {
      cause: error,
      details: { path: root },
    });
  }
  const rel = relative(realpathSync(project), real);
  if (rel === ".." || rel.startsWith(`..${sep}`) || rel === "" || rel.startsWith(sep))
    throw new MeshflowError(
      "unsafe_path",
      `the run store ${root} is a link to ${real}, outside ${project}; meshflow keeps runs only inside the folder of their store — remove the link or set FLOW_HOME`,
      { details: { path: root, target: real } },
    );
  return true;
}
