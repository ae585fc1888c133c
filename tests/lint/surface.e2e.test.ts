import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/runFlow.js";

/** The surface check of `npm run lint`, as package.json states it. */
const SURFACE = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> })
  .scripts["lint:surface"];

/** Runs the surface check in `dir` with the repository's tools, answering its exit code and output. */
function lintSurface(dir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("sh", ["-c", SURFACE ?? "false"], {
      cwd: dir,
      env: { ...process.env, PATH: `${join(ROOT, "node_modules", ".bin")}${delimiter}${process.env.PATH ?? ""}` },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    for (const stream of [child.stdout, child.stderr]) stream.on("data", (d: Buffer) => (output += d.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

/**
 * A workspace laid out as meshflow's, with its knip and TypeScript settings: `alpha` exports one
 * function that `beta` uses, and `alpha` declares `extraDependencies`.
 */
function fixture(extraDependencies: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-lint-"));
  cpSync(join(ROOT, "knip.jsonc"), join(dir, "knip.jsonc"));
  writeFileSync(
    join(dir, "tsconfig.typecheck.json"),
    JSON.stringify({ compilerOptions: { paths: { "@fixture/*": ["./packages/*/src/index.ts"] } } }),
  );
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "fixture", private: true, type: "module", workspaces: ["packages/*"] }),
  );
  const pkg = (name: string, dependencies: Record<string, string>, source: string) => {
    mkdirSync(join(dir, "packages", name, "src"), { recursive: true });
    writeFileSync(
      join(dir, "packages", name, "package.json"),
      JSON.stringify({ name: `@fixture/${name}`, type: "module", exports: { ".": "./src/index.ts" }, dependencies }),
    );
    writeFileSync(join(dir, "packages", name, "src", "index.ts"), source);
  };
  pkg("alpha", extraDependencies, "/** Doubles. */\nexport function double(n: number): number {\n  return n * 2;\n}\n");
  pkg(
    "beta",
    { "@fixture/alpha": "0.0.0" },
    'import { double } from "@fixture/alpha";\n\n/** Quadruples. */\nexport const quadruple = (n: number): number => double(double(n));\n',
  );
  // beta's export is the workspace's public surface: something must use it, as a test would.
  mkdirSync(join(dir, "tests"));
  writeFileSync(
    join(dir, "tests", "beta.test.ts"),
    'import { quadruple } from "@fixture/beta";\n\nif (quadruple(1) !== 4) throw new Error("quadruple");\n',
  );
  return dir;
}

describe("npm run lint (lint:surface)", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("passes a workspace whose every dependency is imported", async () => {
    const dir = fixture({});
    dirs.push(dir);
    const { code, output } = await lintSurface(dir);
    expect(output).not.toContain("Unused");
    expect(code).toBe(0);
  }, 120_000);

  it("fails on a dependency no file imports, naming it and its package.json", async () => {
    // How @meshflow/gateway came to declare @meshflow/queue: nothing caught a declared, unused package.
    const dir = fixture({ picomatch: "^4.0.7" });
    dirs.push(dir);
    const { code, output } = await lintSurface(dir);
    expect(code).not.toBe(0);
    expect(output).toContain("Unused dependencies");
    expect(output).toMatch(/picomatch\s+packages\/alpha\/package\.json/);
  }, 120_000);
});
