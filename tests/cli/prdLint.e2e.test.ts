import { describe, expect, it } from "vitest";
import { type PrdProject, prdProject } from "../helpers/prdProject.js";
import { FLOW_BIN } from "../helpers/runFlow.js";

// `flow prd lint` as a user runs it: the built binary in a fresh project with real MCP servers, on
// PRDs crafted to trip each rule (and one that trips none).

/** Writes a PRD of the given stories (filled in where a test does not care) to prd.json. */
function writePrd(project: PrdProject, stories: Array<Record<string, unknown>>, head: Record<string, unknown> = {}) {
  const userStories = stories.map((story, i) => ({
    id: `US-00${i + 1}`,
    title: `Story ${i + 1}`,
    acceptanceCriteria: ["`npm test` exits 0"],
    mavenSteps: [5],
    mcpTools: { step5: ["workspace"] },
    verify: [{ run: ["npm", "test"] }],
    priority: i + 1,
    ...story,
  }));
  return project.write("prd.json", JSON.stringify({ project: "prd-app", ...head, userStories }, null, 2));
}

interface LintReport {
  valid: boolean;
  clean: boolean;
  warnings: Array<{ rule: string; path: string; story: string; step?: number; message: string }>;
  notes: string[];
}

describe("flow prd lint", () => {
  it("exits 0 and says so for a PRD with nothing to warn about", async () => {
    const project = prdProject();
    writePrd(project, [
      {},
      { mavenSteps: [7, 5], mcpTools: { step7: ["filesystem"], step5: ["workspace"] }, model: "openai:gpt-x" },
    ]);
    const result = await project.flow(["prd", "lint", "prd.json"]);
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("prd.json: no warnings\n");
    expect(result.code).toBe(0);
  });

  it("exits 1 listing each rule's warning, located, with the servers' real capabilities", async () => {
    const project = prdProject();
    writePrd(project, [
      { acceptanceCriteria: ["Works correctly", "Good UX"] },
      { verify: undefined },
      { mcpTools: { step5: ["memory"] } },
      { mavenSteps: [7], mcpTools: { step7: ["filesystem"] } },
      { acceptanceCriteria: ["`a` runs", "`b` runs", "`c` runs"] },
      { passes: true, acceptanceCriteria: [] },
    ]);
    const result = await project.flow(["prd", "lint", "prd.json", "--json", "--max-criteria", "2"]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as LintReport;
    expect(report).toMatchObject({ valid: true, clean: false, notes: [] });
    expect(report.warnings.map((w) => [w.rule, w.story, w.path])).toEqual([
      ["uncheckable-criteria", "US-001", "$.userStories[0].acceptanceCriteria"],
      ["no-verify", "US-002", "$.userStories[1].verify"],
      ["step-capabilities", "US-003", "$.userStories[2].mcpTools.step5"],
      ["no-plan", "US-004", "$.userStories[3].mavenSteps[0]"],
      ["too-many-criteria", "US-005", "$.userStories[4].acceptanceCriteria"],
    ]);
    expect(report.warnings[2]?.message).toBe(
      "step 5's servers (memory) offer none of what it needs (test_run, code_execute)",
    );

    const text = await project.flow(["prd", "lint", "prd.json"]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(
      "prd.json: $.userStories[2].mcpTools.step5: warning: step 5's servers (memory) offer none of what it needs (test_run, code_execute) [step-capabilities]",
    );
    expect(text.stdout).toContain("prd.json: 4 warnings");
  });

  it("warns of a verify command the workspace server of its step 5 does not allow, with the args that allow it", async () => {
    const project = prdProject();
    const config = project.json(".mcp.json") as { mcpServers: Record<string, { args: string[] }> };
    const workspace = (...more: string[]) => ({
      command: process.execPath,
      args: [FLOW_BIN, "workspace-server", "--root", project.dir, ...more],
    });
    // As `flow init` writes it for a project without a test script (no --allow), a list from a config
    // file, and the fixture's own `workspace` (--allow npm).
    project.write(
      ".mcp.json",
      JSON.stringify({
        mcpServers: { ...config.mcpServers, bare: workspace(), filed: workspace("--config", "workspace.yaml") },
      }),
    );
    project.write("workspace.yaml", "allow: [git]\n");
    writePrd(project, [
      { mcpTools: { step5: ["bare"] } },
      { mcpTools: { step5: ["filed"] }, verify: [{ run: ["git", "status"] }, { name: "unit", run: ["npm", "test"] }] },
      { mcpTools: { step5: ["workspace"] } },
      { mcpTools: { step5: ["bare"] }, passes: true },
      // Step 7's specialist runs no verify command: only step 5's server is judged.
      {
        mavenSteps: [7, 5],
        mcpTools: { step7: ["filesystem", "bare"], step5: ["workspace"] },
        model: "openai:gpt-x",
      },
      // Two code_execute tools: the quality agent uses none unless the story's settings choose one.
      { mcpTools: { step5: ["workspace", "bare"] } },
      { mcpTools: { step5: ["workspace", "bare"] }, agentConfig: { "quality-agent": { tool: "bare__run_command" } } },
    ]);
    const result = await project.flow(["prd", "lint", "prd.json", "--json"]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as LintReport;
    expect(report.notes).toEqual([]);
    expect(report.warnings).toEqual([
      {
        rule: "verify-not-allowed",
        path: "$.userStories[0].verify[0]",
        story: "US-001",
        step: 5,
        message:
          'US-001: verify "npm test" would be refused by bare__run_command in step 5 (quality-agent): MCP server "bare" does not allow "npm" (allowed: none); to allow it, add "--allow", "npm" to the args of MCP server "bare" in .mcp.json',
      },
      {
        rule: "verify-not-allowed",
        path: "$.userStories[1].verify[1]",
        story: "US-002",
        step: 5,
        message:
          'US-002: verify "unit" would be refused by filed__run_command in step 5 (quality-agent): MCP server "filed" does not allow "npm" (allowed: git); to allow it, add "npm" to "allow" in workspace.yaml (the --config file of MCP server "filed" in .mcp.json)',
      },
      {
        rule: "verify-not-allowed",
        path: "$.userStories[6].verify[0]",
        story: "US-007",
        step: 5,
        message:
          'US-007: verify "npm test" would be refused by bare__run_command in step 5 (quality-agent): MCP server "bare" does not allow "npm" (allowed: none); to allow it, add "--allow", "npm" to the args of MCP server "bare" in .mcp.json',
      },
    ]);

    // The fixes the warnings name are the ones that work.
    const fixed = project.json(".mcp.json") as { mcpServers: Record<string, { args: string[] }> };
    fixed.mcpServers.bare?.args.push("--allow", "npm");
    project.write(".mcp.json", JSON.stringify(fixed));
    project.write("workspace.yaml", "allow: [git, npm]\n");
    const clean = await project.flow(["prd", "lint", "prd.json"]);
    expect(clean.stdout).toBe("prd.json: no warnings\n");
    expect(clean.code).toBe(0);
  });

  it("does not judge capabilities it cannot know, and says why", async () => {
    const project = prdProject({ servers: false, test: null });
    writePrd(project, [{ mcpTools: { step5: ["memory"] }, verify: undefined }]);
    const result = await project.flow(["prd", "lint", "prd.json"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("flow: note: no MCP config found");
  });

  it("exits 1 for an invalid PRD and 2 for a usage error", async () => {
    const project = prdProject({ servers: false });
    project.write("broken.json", '{"project": "x", "userStories": [{"id": "US-001"}]}');
    const invalid = await project.flow(["prd", "lint", "broken.json"]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain("broken.json: invalid PRD");
    expect((await project.flow(["prd", "lint"])).code).toBe(2);
    expect((await project.flow(["prd", "lint", "broken.json", "--max-criteria", "0"])).code).toBe(2);
    expect((await project.flow(["prd", "lint", "missing.json"])).code).toBe(2);
    expect((await project.flow(["prd"])).code).toBe(2);
  });
});
