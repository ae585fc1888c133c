import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runFlow } from "../helpers/runFlow.js";

const folder = () => mkdtempSync(join(tmpdir(), "meshflow-init-ignores-"));
const init = (dir: string) => runFlow(["init", "--yes", "--json"], { cwd: dir });
const statusOf = (stdout: string) =>
  (JSON.parse(stdout) as { files: Array<{ file: string; status: string }> }).files.find((f) => f.file === ".gitignore")
    ?.status;

describe("flow init and .gitignore", () => {
  it("ignores .flow/ and, beside a package.json, node_modules/ (a run reads every file git neither tracks nor ignores)", async () => {
    const dir = folder();
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "app", scripts: { test: "node --test" } }));
    const first = await init(dir);
    expect(first.code, first.stderr).toBe(0);
    expect(statusOf(first.stdout)).toBe("written");
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe(".flow/\nnode_modules/\n");
    const again = await init(dir);
    expect(statusOf(again.stdout)).toBe("kept");
  });

  it("adds only what an existing .gitignore lacks, in any of its usual spellings, keeping every line", async () => {
    const dir = folder();
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "app" }));
    writeFileSync(join(dir, ".gitignore"), "# deps\n/node_modules\ndist");
    const result = await init(dir);
    expect(result.code, result.stderr).toBe(0);
    expect(statusOf(result.stdout)).toBe("updated");
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe("# deps\n/node_modules\ndist\n.flow/\n");

    const both = folder();
    writeFileSync(join(both, "package.json"), JSON.stringify({ name: "app" }));
    writeFileSync(join(both, ".gitignore"), ".flow\n");
    await init(both);
    expect(readFileSync(join(both, ".gitignore"), "utf8")).toBe(".flow\nnode_modules/\n");
  });

  it("leaves node_modules/ out of a project without a package.json", async () => {
    const dir = folder();
    const result = await init(dir);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe(".flow/\n");
  });
});
