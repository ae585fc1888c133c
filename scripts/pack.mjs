#!/usr/bin/env node
// `npm run pack [-- --out <dir>]`: packs every publishable workspace package (packages/* not marked
// private) into one folder (default `packs/`), so a project installs meshflow from this checkout before
// the packages are on the registry. Run after `npm run build`; prints the install line to use.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const at = process.argv.indexOf("--out");
const out = resolve(at > 0 && process.argv[at + 1] ? process.argv[at + 1] : join(root, "packs"));

/** The workspace packages a user installs: every package of packages/ that is not private. */
export function publishable() {
  return readdirSync(join(root, "packages")).filter((dir) => {
    const pkg = JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8"));
    return pkg.private !== true;
  });
}

mkdirSync(out, { recursive: true });
// An older version's tarball left beside the new ones would be installed with them.
for (const old of readdirSync(out)) if (old.startsWith("meshflow-") && old.endsWith(".tgz")) rmSync(join(out, old));
for (const dir of publishable())
  execFileSync("npm", ["pack", "--silent", "--pack-destination", out], {
    cwd: join(root, "packages", dir),
    stdio: ["ignore", "ignore", "inherit"],
  });
const tarballs = readdirSync(out).filter((t) => t.endsWith(".tgz"));
const shown = relative(process.cwd(), out) || ".";
console.log(`packed ${tarballs.length} packages into ${shown}/:`);
for (const t of tarballs) console.log(`  ${t}`);
console.log(`\nin your project:\n  npm install -D ${resolve(out)}/*.tgz`);
