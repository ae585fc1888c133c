import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT, runNode } from "../helpers/runFlow.js";

const DEMO = join(ROOT, "prd/examples/demo");
const SCRIPT = join(ROOT, "scripts/demo.mjs");

const runDemo = (args: string[] = []) => runNode([SCRIPT, ...args], { cwd: ROOT });

/** Every file under a folder with its bytes, to prove the demo leaves the repository as it was. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else out[relative(dir, path)] = readFileSync(path, "base64");
    }
  };
  walk(dir);
  return out;
}

const copies: string[] = [];
const copyOf = (stdout: string) => {
  const dir = /on a copy in (\S+)/.exec(stdout)?.[1] ?? "";
  if (dir) copies.push(dir);
  return dir;
};

describe("npm run demo", () => {
  afterAll(() => {
    for (const dir of copies) rmSync(dir, { recursive: true, force: true });
  });

  it("runs the demo PRD on a copy: the green stories pass, the planted secret is caught, exit 0", async () => {
    const before = snapshot(DEMO);
    const result = await runDemo();
    const dir = copyOf(result.stdout);
    // No warning, no error; and the run folder is said once, at the end (flow's own line said it before).
    expect(result.stderr).toBe("");
    expect(result.stdout.match(/run folder:/g)).toHaveLength(1);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "demo: as expected — US-001, US-002, US-003, US-004, US-006 passed; US-005 caught the planted problem: " +
        "ops/deploy.js:4: aws-access-key-id (AKIA…(20 chars)).",
    );
    // Where to look, printed at the end: the run folder and the updated PRD (in the copy).
    const runFolder = /^run folder: +(\S+)$/m.exec(result.stdout)?.[1] ?? "";
    expect(runFolder.startsWith(join(dir, ".flow/runs/"))).toBe(true);
    expect(result.stdout).toContain(
      `updated PRD: ${join(dir, "prd.json")} (passes: true on US-001, US-002, US-003, US-004, US-006)`,
    );
    const prd = JSON.parse(readFileSync(join(dir, "prd.json"), "utf8")) as {
      userStories: Array<{ id: string; passes: boolean; notes: string }>;
    };
    expect(prd.userStories.map((s) => [s.id, s.passes])).toEqual([
      ["US-001", true],
      ["US-002", true],
      ["US-003", true],
      ["US-004", true],
      ["US-005", false],
      ["US-006", true],
    ]);
    // The work was really done in the copy: step 2 wrote due.js, whose tests the quality step and the gate ran.
    expect(readFileSync(join(dir, "src/due.js"), "utf8")).toContain("export function parseDue");
    // US-006 was worked by the model replayed from model.cassette.json: its files exist and its tests ran.
    expect(readFileSync(join(dir, "src/count.js"), "utf8")).toContain("export function countOpen");
    expect(readFileSync(join(dir, "test/count.test.js"), "utf8")).toContain("countOpen([])");
    const turns = readFileSync(join(runFolder, "events.ndjson"), "utf8")
      .split("\n")
      .filter((l) => l.includes('"model.turn"'))
      .map((l) => JSON.parse(l) as { storyId: string; replayed?: boolean });
    expect(turns.map((t) => [t.storyId, t.replayed])).toEqual([
      ["US-006", true],
      ["US-006", true],
      ["US-006", true],
    ]);
    const evidence = readFileSync(join(runFolder, "evidence.ndjson"), "utf8");
    expect(evidence).not.toContain("AKIAIOSFODNN7EXAMPLE");
    // The repository's demo folder is untouched.
    expect(snapshot(DEMO)).toEqual(before);
  });

  it("exits 1 and names the difference when the run does not end as expected", async () => {
    // A copy of the demo whose deploy script no longer holds the key: US-005 passes, which the demo
    // must report as a difference rather than as success.
    const source = mkdtempSync(join(tmpdir(), "meshflow-demo-source-"));
    copies.push(source);
    cpSync(DEMO, source, { recursive: true });
    writeFileSync(join(source, "ops/deploy.js"), "export const deployTarget = (bucket) => ({ bucket });\n");
    const result = await runDemo([source]);
    copyOf(result.stdout);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("demo: the run did NOT end as expected");
    expect(result.stderr).toContain("- US-005 passed, expected failed");
    // US-006's model is told the PRD's finished stories, so its recorded turns no longer match the
    // request once US-005 passed: the replay refuses (blocked), it never answers a different prompt.
    expect(result.stderr).toContain("- US-006 blocked, expected passed");
  });
});
