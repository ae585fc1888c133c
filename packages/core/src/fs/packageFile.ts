import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const roots = new Map<string, string>();

/**
 * A file of the package a module belongs to: `relative` under the nearest folder above the module that
 * holds a `package.json`. Data files and templates are found this way wherever the module's code sits
 * in the package (its source file, or a bundle of the built package).
 */
export function packageFile(moduleUrl: string | URL, relative: string): string {
  const start = dirname(fileURLToPath(moduleUrl));
  let root = roots.get(start);
  if (root === undefined) {
    let dir = start;
    while (!existsSync(join(dir, "package.json"))) {
      const up = dirname(dir);
      if (up === dir) throw new Error(`no package.json above ${start}`);
      dir = up;
    }
    root = dir;
    roots.set(start, root);
  }
  return join(root, relative);
}
