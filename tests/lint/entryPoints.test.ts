import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/runFlow.js";

/** Every package's entry-point sources, from the "exports" of its package.json. */
function entryPoints(): string[] {
  const files: string[] = [];
  for (const name of readdirSync(join(ROOT, "packages"))) {
    const manifest = JSON.parse(readFileSync(join(ROOT, "packages", name, "package.json"), "utf8")) as {
      exports?: Record<string, string | { default?: string }>;
    };
    for (const target of Object.values(manifest.exports ?? {})) {
      const built = typeof target === "string" ? target : target.default;
      const entry = /^\.\/dist\/bundle\/(.+)\.js$/.exec(built ?? "");
      if (entry) files.push(join("packages", name, "src", `${entry[1]}.ts`));
    }
  }
  return files;
}

describe("package entry points", () => {
  it("re-export nothing from an internal/ folder", () => {
    const offending = entryPoints().flatMap((file) =>
      readFileSync(join(ROOT, file), "utf8")
        .split(/;\s*\n/)
        .filter((statement) => /^\s*export\b/m.test(statement) && /from\s+"\.\/internal\//.test(statement))
        .map((statement) => `${file}: ${statement.trim().split("\n").at(-1)}`),
    );
    expect(offending).toEqual([]);
  });

  it("are found for every package", () => {
    expect(entryPoints()).toContain(join("packages", "runtime", "src", "index.ts"));
    expect(entryPoints().length).toBeGreaterThanOrEqual(13);
  });
});
