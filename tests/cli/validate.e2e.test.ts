import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, runFlow } from "../helpers/runFlow.js";

const example = "prd/examples/todo-app/prd.json";
const digest = (file: string) =>
  createHash("sha256")
    .update(readFileSync(join(ROOT, file)))
    .digest("hex");

describe("flow validate", () => {
  it("exits 0 on a valid PRD and leaves it byte-identical", async () => {
    const before = digest(example);
    const result = await runFlow(["validate", example]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${example}: valid (4 stories, 9 steps)\n`);
    expect(digest(example)).toBe(before);
  });

  it("exits 1 and lists every problem as <file>: <json-path>: <message>", async () => {
    const file = "prd/examples/invalid/many-problems.json";
    const result = await runFlow(["validate", file]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toEqual([
      `${file}: $.userStories[1].id: duplicate story id "US-001" (also at $.userStories[0].id)`,
      `${file}: $.userStories[2].mcpTools.build: key must be "step<N>" (e.g. "step1"), found "build"`,
      `${file}: $.userStories[2].mcpTools.step4: step 4 is not in mavenSteps [1,7]`,
      `${file}: $.userStories[3].mavenSteps[0]: expected a number >= 1, found number 0`,
      `${file}: $.userStories[3].mavenSteps[1]: expected a number <= 11, found number 12`,
      `${file}: $.userStories[3].priority: expected number, found the string "high"`,
      `${file}: $.userStories[4].mavenSteps[1]: step 5 is listed twice (first at index 0)`,
      `${file}: $.userStories[4].verify[0].cwd: cwd must be a path relative to the PRD's folder that stays inside the project (its git repository, else the folder holding .mcp.json), found "../../../..": outside the project ${ROOT.replace(/\/$/, "")}`,
      `${file}: invalid (8 problems)`,
    ]);
  });

  it("--json prints {valid, errors[{path, message}]}", async () => {
    const ok = await runFlow(["validate", example, "--json"]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).valid).toBe(true);
    expect(JSON.parse(ok.stdout).errors.filter((e: { severity: string }) => e.severity === "error")).toEqual([]);

    const broken = await runFlow(["validate", "prd/examples/invalid/broken-json.json", "--json"]);
    expect(broken.code).toBe(1);
    expect(JSON.parse(broken.stdout)).toEqual({
      valid: false,
      errors: [
        {
          file: "prd/examples/invalid/broken-json.json",
          path: "$",
          message: "invalid JSON at line 4, column 36: expected ',' or a closing bracket",
          severity: "error",
        },
      ],
    });
  });

  it("refuses settings for a specialist that does not exist, as flow run does", async () => {
    // validate used to know no specialists and only warned; it now loads those flow run would load.
    const file = "tests/fixtures/prd/agent-config-unrouted.json";
    const text = await runFlow(["validate", file]);
    expect(text.code).toBe(1);
    expect(text.stderr).toBe(
      `${file}: $.userStories[0].agentConfig["refactor-agnet"]: "refactor-agnet" is not a known specialist (did you mean "refactor-agent"?) (known: design-agent, development-agent, quality-agent, refactor-agent, security-agent)\n${file}: invalid (1 problem)\n`,
    );
  });

  it("exits 2 for a missing file, an unknown flag, or no argument", async () => {
    const missing = await runFlow(["validate", "prd/nope.json"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("prd/nope.json: cannot read PRD: no such file");
    expect((await runFlow(["validate", example, "--bogus"])).code).toBe(2);
    const noArg = await runFlow(["validate"]);
    expect(noArg.code).toBe(2);
    expect(noArg.stderr).toContain("missing required argument 'prd.json | folder'");
  });

  it("exits 2 with a JSON error on --json when the file is missing", async () => {
    const result = await runFlow(["validate", "prd/nope.json", "--json"]);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual({
      error: { code: "file_not_found", message: "prd/nope.json: cannot read PRD: no such file" },
    });
  });

  it("warns of a step a run would block: a specialist without a plan of its own, and neither calls nor a model", async () => {
    // validate passed such a PRD without a word; the run then blocked the story at its first step.
    const result = await runFlow(["validate", example, "--json"]);
    const warnings = JSON.parse(result.stdout).errors.filter((e: { severity: string }) => e.severity === "warning");
    expect(warnings.map((w: { path: string }) => w.path)).toEqual([
      "$.userStories[0].mavenSteps[0]",
      "$.userStories[0].mavenSteps[1]",
      "$.userStories[1].mavenSteps[0]",
    ]);
    expect(warnings[1].message).toBe(
      'step 7 (development-agent) has neither calls nor a model, so a run blocks it: add "calls": {"step7": [...]}, a "model" to the story or PRD, or run with --model',
    );
    // Stories that passed are skipped by a run; a model (FLOW_MODEL here) gives every step a plan.
    const withModel = await runFlow(["validate", example], { env: { FLOW_MODEL: "openai:gpt-test" } });
    expect(withModel).toMatchObject({ code: 0, stderr: "" });
  });

  it("checks the MCP servers a PRD names against the MCP config it finds, as flow plan does", async () => {
    // validate judged the file alone: an unknown server passed it and only flow plan (or the run) caught it.
    const file = "prd/examples/invalid/unknown-server.json";
    const config = "prd/examples/todo-app/.mcp.json";
    const result = await runFlow(["validate", file, "--mcp-config", config]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `${file}: $.userStories[0].mcpTools.step7[0]: unknown MCP server "memroy" (did you mean "memory"?) in ${config}`,
    );
    const found = await runFlow(["validate", file, "--json"], { env: { FLOW_MCP_CONFIG: config } });
    expect(JSON.parse(found.stdout).valid).toBe(false);
    // Without any MCP config the file alone is judged: nothing to check the names against.
    expect((await runFlow(["validate", file])).code).toBe(0);
  });

  it("uses a routing override from --routing or FLOW_ROUTING", async () => {
    const override = "tests/fixtures/routing/no-design.yaml";
    const flag = await runFlow(["validate", example, "--routing", override, "--json"]);
    expect(flag.code).toBe(1);
    const errors = JSON.parse(flag.stdout).errors.filter((e: { severity: string }) => e.severity === "error");
    expect(errors.map((e: { path: string }) => e.path)).toEqual(["$.userStories[3].mavenSteps[0]"]);
    const env = await runFlow(["validate", example], { env: { FLOW_ROUTING: override } });
    expect(env.code).toBe(1);
    expect(env.stderr).toContain(
      "step 11 routes to no specialist (routing: default + tests/fixtures/routing/no-design.yaml)",
    );
  });
});

describe("flow --help and --version", () => {
  it("prints help for the program and for every command, exit 0", async () => {
    const top = await runFlow(["--help"]);
    expect(top.code).toBe(0);
    expect(top.stdout).toContain("Usage: flow");
    expect(top.stdout).toContain("Exit codes:");
    for (const command of ["validate", "plan"]) {
      const help = await runFlow([command, "--help"]);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`Usage: flow ${command}`);
      expect(help.stdout).toContain("--json");
    }
  });

  it("prints the package version", async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "packages/cli/package.json"), "utf8")) as {
      version: string;
    };
    expect(await runFlow(["--version"])).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
  });

  it("prints help on stderr and exits 2 without a command; exits 2 on an unknown command", async () => {
    const none = await runFlow([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("Usage: flow");
    expect((await runFlow(["frobnicate"])).code).toBe(2);
  });
});
