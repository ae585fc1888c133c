#!/usr/bin/env node
// Copies the repository's shipped specialists (agents/) and skills (skills/) into builtin/, the
// data @meshflow/cli ships: they are the defaults of a project that has none of its own. Tests of
// the specialists stay behind (they need the repository's fixtures). The specialists' TypeScript is
// compiled to JavaScript here, so a run loads them with Node's own import, without a transpiler.
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

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

// The compiler options of the repository (tsconfig.base.json), as one file at a time needs them.
const compilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  verbatimModuleSyntax: true,
  sourceMap: false,
};
function compileFolder(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) compileFolder(path);
    else if (entry.isFile() && /\.m?ts$/.test(entry.name) && !entry.name.endsWith(".d.ts")) {
      const { outputText, diagnostics } = ts.transpileModule(readFileSync(path, "utf8"), {
        compilerOptions,
        fileName: path,
        reportDiagnostics: true,
      });
      if (diagnostics?.length)
        throw new Error(`copy-builtin: ${path}: ${ts.flattenDiagnosticMessageText(diagnostics[0].messageText, "\n")}`);
      writeFileSync(path.replace(/ts$/, "js"), outputText);
      rmSync(path);
    }
  }
}
compileFolder(join(target, "agents"));
// The PRD's JSON Schema ships too: `flow init` points a new PRD's `$schema` at it, so editors of a project
// that installed @meshflow/cli validate and complete PRDs without a copy of this repository.
cpSync(join(repo, "prd", "prd.schema.json"), join(target, "prd.schema.json"));
