import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_STEP, MIN_STEP, stepPurpose } from "@meshflow/core";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain JavaScript module of the repository's scripts, without declarations.
import { CLI_REFERENCE_PATH, cliReference } from "../../scripts/cliReference.mjs";
import { ROOT } from "../helpers/runFlow.js";

describe("docs/cli.md", () => {
  it("is what every command's --help says now (run `npm run docs:cli` after changing a command)", async () => {
    const generated = (await cliReference()) as string;
    expect(readFileSync(join(ROOT, CLI_REFERENCE_PATH as string), "utf8")).toBe(generated);
    // Every command and subcommand has its section, `flow plan`'s with the steps' purposes.
    for (const heading of ["## flow run", "## flow plan", "### flow tools call", "### flow new specialist"])
      expect(generated).toContain(`\n${heading}\n`);
    expect(generated).toContain("8  Authentication: implement or review sign-in");
  });
});

describe("docs/prd.md", () => {
  it("lists every step with the purpose a model working it is told", () => {
    const page = readFileSync(join(ROOT, "docs/prd.md"), "utf8");
    for (let step = MIN_STEP; step <= MAX_STEP; step++) expect(page).toContain(`| ${step} | ${stepPurpose(step)} |`);
  });
});
