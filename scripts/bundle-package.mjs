#!/usr/bin/env node
// Bundles a package's compiled JavaScript (tsc's dist/) into dist/bundle/: one file per entry point in
// package.json "exports" (and the CLI's dist/bin.js), code shared by several entries in chunks. Other
// packages (meshflow's and npm's) stay imports. A command loads a few files per package instead of
// dozens, which is most of what Node spends starting `flow` on module loading. Run in the package's
// folder after `tsc -b`; package.json "exports" name the bundles.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { rolldown } from "rolldown";

const pkg = process.cwd();
const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
const input = {};
for (const [key, target] of Object.entries(manifest.exports ?? {})) {
  const file = typeof target === "string" ? target : target.default;
  const entry = /^\.\/dist\/bundle\/(.+)\.js$/.exec(file ?? "");
  if (!entry) continue;
  const source = join(pkg, "dist", `${entry[1]}.js`);
  if (!existsSync(source)) throw new Error(`bundle-package: ${manifest.name} "${key}": ${source} was not built`);
  input[entry[1]] = source;
}
if (existsSync(join(pkg, "dist", "bin.js"))) input.bin = join(pkg, "dist", "bin.js");
if (!Object.keys(input).length) throw new Error(`bundle-package: ${manifest.name} exports no ./dist/bundle/*.js`);

const out = join(pkg, "dist", "bundle");
rmSync(out, { recursive: true, force: true });
const bundle = await rolldown({
  input,
  platform: "node",
  // Only the package's own files are bundled: a bare specifier is another package.
  external: (id) => !id.startsWith(".") && !id.startsWith("/"),
  logLevel: "warn",
});
await bundle.write({ dir: out, format: "esm", sourcemap: true, chunkFileNames: "[name]-[hash].js" });
await bundle.close();
