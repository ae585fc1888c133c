import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, runFlow } from "../helpers/runFlow.js";

const example = "prd/examples/todo-app/prd.json";
const config = "prd/examples/todo-app/.mcp.json";
const digest = (file: string) =>
  createHash("sha256")
    .update(readFileSync(join(ROOT, file)))
    .digest("hex");

describe("flow plan", () => {
  it("prints the routing table in run order, skipped stories marked, exit 0", async () => {
    const before = digest(example);
    const result = await runFlow(["plan", example, "--mcp-config", config]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    const lines = result.stdout.split("\n");
    expect(lines[0]).toBe(`Plan for ${example} (routing: default; MCP config: ${config})`);
    const storyLines = lines.filter((l) => /^US-/.test(l));
    expect(storyLines).toEqual([
      "US-003  Project scaffold  (priority 0)  — skipped: passes is true",
      "US-001  Add status field to tasks  (priority 1)",
      "US-002  Filter tasks by status  (priority 2)",
      "US-004  Status badge on mobile  (priority 2)",
    ]);
    expect(result.stdout).toContain("  step 5   Quality         quality-agent      everything");
    // What the step is for, as the model working it is told, under its row.
    expect(result.stdout).toContain("        make the type checks and tests pass; no `any`, no skipped tests.");
    expect(result.stdout).toContain("3 stories to run (8 steps), 1 skipped");
    expect(digest(example)).toBe(before);
  });

  it("--json gives stories with steps, specialists and servers", async () => {
    const result = await runFlow(["plan", example, "--mcp-config", config, "--json"]);
    expect(result.code).toBe(0);
    const plan = JSON.parse(result.stdout);
    expect(plan.problems).toEqual([]);
    expect(plan.stories.map((s: { id: string; skipped: boolean }) => [s.id, s.skipped])).toEqual([
      ["US-003", true],
      ["US-001", false],
      ["US-002", false],
      ["US-004", false],
    ]);
    expect(plan.stories[3].steps).toEqual([
      {
        step: 11,
        purpose: "Design: make the story's UI consistent, responsive and usable (mobile included).",
        specialist: "design-agent",
        servers: ["filesystem"],
      },
      {
        step: 10,
        purpose: "Security: find and fix secrets, injection risks and unsafe error handling.",
        specialist: "security-agent",
        servers: ["filesystem", "memory"],
      },
    ]);
  });

  it("exits 1 on an unknown server, with the path and a suggestion", async () => {
    const file = "prd/examples/invalid/unknown-server.json";
    const result = await runFlow(["plan", file, "--mcp-config", config, "--json"]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).problems).toEqual([
      {
        file,
        path: "$.userStories[0].mcpTools.step7[0]",
        message: `unknown MCP server "memroy" (did you mean "memory"?) in ${config}; configured: filesystem, memory, everything`,
        severity: "error",
      },
    ]);
  });

  it("finds the MCP config through FLOW_MCP_CONFIG, then ./.mcp.json", async () => {
    const viaEnv = await runFlow(["plan", example, "--json"], { env: { FLOW_MCP_CONFIG: config } });
    expect(JSON.parse(viaEnv.stdout).mcpConfig).toBe(config);
    const viaCwd = await runFlow(["plan", "prd.json", "--json"], {
      cwd: join(ROOT, "prd/examples/todo-app"),
    });
    expect(viaCwd.code).toBe(0);
    expect(JSON.parse(viaCwd.stdout).mcpConfig).toBe(".mcp.json");
  });

  it("without any MCP config, every referenced server is a problem", async () => {
    const result = await runFlow(["plan", example], { cwd: ROOT });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'unknown MCP server "filesystem" in no MCP config (looked for --mcp-config, FLOW_MCP_CONFIG, ./.mcp.json)',
    );
  });

  it("exits 1 on an invalid PRD with the validation problems, 2 on a missing MCP config file", async () => {
    const invalid = await runFlow(["plan", "prd/examples/invalid/broken-json.json", "--json"]);
    expect(invalid.code).toBe(1);
    expect(JSON.parse(invalid.stdout).problems[0].message).toMatch(/^invalid JSON at line 4, column 36/);
    const missing = await runFlow(["plan", example, "--mcp-config", "nope.json"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("nope.json: MCP config named by --mcp-config does not exist");
  });
});
