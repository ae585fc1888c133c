#!/usr/bin/env node
// Copies the repository's shipped specialists (agents/) and skills (skills/) into builtin/, the
// data @meshflow/cli ships: they are the defaults of a project that has none of its own. Tests of
// the specialists stay behind (they need the repository's fixtures).
import { cpSync, existsSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = dirname(dirname(fileURLToPath(import.meta.url)));
const repo = join(pkg, "..", "..");
const target = join(pkg, "builtin");
rmSync(target, { recursive: true, force: true });
for (const folder of ["agents", "skills"]) {
  const source = join(repo, folder);
  if (!existsSync(source)) throw new Error(`copy-builtin: ${source} does not exist`);
  cpSync(source, join(target, folder), {
    recursive: true,
    filter: (file) => !/\.test\.ts$/.test(basename(file)) && basename(file) !== "node_modules",
  });
}
