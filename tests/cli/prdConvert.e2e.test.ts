import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { prdProject } from "../helpers/prdProject.js";
import { ROOT } from "../helpers/runFlow.js";

// `flow prd convert` as a user runs it: the built binary in a fresh project whose .mcp.json holds the
// real filesystem and memory servers and our workspace server, converting Markdown PRDs of the shapes
// ralph's and ralph-tui's PRD skills write (tests/fixtures/prd-markdown).

const fixture = (name: string) => join(ROOT, "tests/fixtures/prd-markdown", name);

interface StoryOut {
  id: string;
  title: string;
  acceptanceCriteria: string[];
  mavenSteps: number[];
  mcpTools: Record<string, string[]>;
  verify?: Array<{ name?: string; run: string[]; cwd?: string }>;
  priority: number;
  dependsOn?: string[];
  passes: boolean;
}
const storiesOf = (prd: Record<string, unknown>) => prd.userStories as StoryOut[];

describe("flow prd convert", () => {
  it("converts ralph's PRD: ids, titles, criteria and order kept, steps by kind, servers by capability, verify from package.json", async () => {
    const project = prdProject();
    const result = await project.flow(["prd", "convert", fixture("ralph-prd.md")]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("wrote prd/prd.json (3 stories, 8 steps)");
    const prd = project.json("prd/prd.json");
    expect(prd).toMatchObject({ project: "prd-app", branchName: "flow/reading-list" });
    expect(prd.description).toContain("Reading List: Let readers keep a list");
    expect(String(prd.$schema)).toMatch(/prd\.schema\.json$/);
    const stories = storiesOf(prd);
    expect(stories.map((s) => [s.id, s.title, s.priority, s.passes])).toEqual([
      ["US-001", "Store reading list entries in the database", 1, false],
      ["US-002", "Show the reading list page", 2, false],
      ["US-003", "Mark an entry as read", 3, false],
    ]);
    expect(stories[0]?.acceptanceCriteria).toEqual([
      "Add `reading_entries` table with columns `url`, `title`, `read` (default false)",
      "Generate and run the migration successfully",
      "Typecheck passes",
    ]);
    // Kinds: data (database, table) → 7, 5; ui (page, browser, button) → 1, 11, 5.
    expect(stories.map((s) => s.mavenSteps)).toEqual([
      [7, 5],
      [1, 11, 5],
      [1, 11, 5],
    ]);
    // Files for the steps that write code, the workspace server (it runs commands) for the quality step;
    // memory offers nothing any of these steps needs.
    expect(stories[0]?.mcpTools).toEqual({ step7: ["filesystem"], step5: ["workspace"] });
    expect(stories[1]?.mcpTools).toEqual({ step1: ["filesystem"], step11: ["filesystem"], step5: ["workspace"] });
    // The PRD sits in prd/: the project's tests run from its root.
    expect(stories[0]?.verify).toEqual([{ name: "tests", run: ["npm", "test"], cwd: ".." }]);
    expect(result.stdout).toContain('US-001: kind "data"');
    expect(result.stdout).toContain("step 5 (needs test_run or code_execute): workspace");

    // Valid for flow validate too (with its warnings: the development steps have no model yet).
    const validate = await project.flow(["validate", "prd/prd.json"]);
    expect(validate.code).toBe(0);
    expect(validate.stdout).toContain("prd/prd.json: valid (3 stories, 8 steps)");
    for (const line of validate.stderr.trim().split("\n")) expect(line).toContain("neither calls nor a model");
  });

  it("converts ralph-tui's chat output: gates become verify commands and criteria, UI gates only for UI stories", async () => {
    const project = prdProject({ test: null });
    const result = await project.flow(["prd", "convert", fixture("ralph-tui-prd.md"), "--json"]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {
      written: boolean;
      stories: number;
      guesses: Array<{ line?: number; story?: string; message: string }>;
      prd: Record<string, unknown>;
    };
    expect(report).toMatchObject({ file: "prd/prd.json", written: true, stories: 3 });
    const stories = storiesOf(project.json("prd/prd.json"));
    expect(stories.map((s) => s.title)).toEqual([
      "Cache notes in local storage",
      "Queue offline edits for sync",
      "Show an offline badge",
    ]);
    expect(stories[0]?.verify?.map((v) => v.run.join(" "))).toEqual([
      "npm run typecheck",
      "npm run lint",
      "npm run format:check",
    ]);
    expect(stories[0]?.acceptanceCriteria.slice(2)).toEqual([
      "`npm run typecheck` passes",
      "`npm run lint && npm run format:check` passes",
      '`npm test -- --grep "offline" | tee out.txt` passes',
    ]);
    expect(stories[0]?.acceptanceCriteria).not.toContain("Verify in browser using dev-browser skill");
    expect(stories[2]?.acceptanceCriteria.at(-1)).toBe("Verify in browser using dev-browser skill");
    // The piped command needs a shell: named with its line, not run by the gate.
    expect(report.guesses).toContainEqual(
      expect.objectContaining({ line: 19, message: expect.stringContaining("needs a shell") }),
    );
    expect(report.guesses).toContainEqual(expect.objectContaining({ story: "US-003", line: 40 }));
  });

  it("keeps the Markdown's own steps, priorities and dependencies; numbers a story without an id", async () => {
    const project = prdProject({ servers: false });
    const result = await project.flow(["prd", "convert", fixture("plain-bullets.md"), "--out", "invoices.json"]);
    expect(result.code).toBe(0);
    const stories = storiesOf(project.json("invoices.json"));
    expect(stories.map((s) => [s.id, s.mavenSteps, s.priority, s.dependsOn ?? []])).toEqual([
      ["US-010", [9, 5], 1, []],
      ["US-011", [1, 11], 2, ["US-010"]],
      ["US-003", [10, 5], 3, []],
    ]);
    // No MCP config: no step gets servers, and that is said.
    expect(stories.every((s) => Object.keys(s.mcpTools).length === 0)).toBe(true);
    expect(result.stdout).toContain("no MCP config found");
    expect(result.stdout).toContain('its heading has no id: given "US-003"');
    // package.json is beside the PRD: the tests run from the PRD's own folder.
    expect(stories[0]?.verify).toEqual([{ name: "tests", run: ["npm", "test"] }]);
  });

  it("never overwrites an existing PRD without --force", async () => {
    const project = prdProject({ servers: false });
    const first = await project.flow(["prd", "convert", fixture("ralph-prd.md")]);
    expect(first.code).toBe(0);
    const before = readFileSync(join(project.dir, "prd/prd.json"), "utf8");
    const again = await project.flow(["prd", "convert", fixture("plain-bullets.md")]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("prd/prd.json exists: give --force to replace it");
    expect(readFileSync(join(project.dir, "prd/prd.json"), "utf8")).toBe(before);
    const forced = await project.flow(["prd", "convert", fixture("plain-bullets.md"), "--force"]);
    expect(forced.code).toBe(0);
    expect(storiesOf(project.json("prd/prd.json"))[0]?.id).toBe("US-010");
  });

  it("refuses Markdown without stories, and a PRD that does not validate, writing nothing", async () => {
    const project = prdProject({ servers: false });
    const none = await project.flow(["prd", "convert", fixture("no-stories.md")]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("no-stories.md: no user stories found: expected headings like");
    const backwards = project.write(
      "backwards.md",
      "# PRD: B\n\n## User Stories\n\n### US-001: First\n**Depends on:** US-002\n\n- [ ] `a` runs\n\n### US-002: Second\n\n- [ ] `b` runs\n",
    );
    const invalid = await project.flow(["prd", "convert", backwards]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('prd/prd.json: $.userStories[0].dependsOn[0]: "US-002" runs after US-001');
    expect(invalid.stderr).toContain("nothing written");
    expect(existsSync(join(project.dir, "prd/prd.json"))).toBe(false);
  });

  it("refuses a Markdown file over 1 MiB before parsing it, and a missing one as a usage error", async () => {
    const project = prdProject({ servers: false });
    const big = project.write("big.md", `# PRD: Big\n\n${"x".repeat(1_048_577)}\n`);
    const result = await project.flow(["prd", "convert", big]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("larger than 1048576 bytes");
    const missing = await project.flow(["prd", "convert", "nope.md"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("nope.md: cannot read it (ENOENT)");
  });
});
