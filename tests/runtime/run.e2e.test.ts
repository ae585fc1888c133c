import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { flowWorkspace, parseEvents } from "../helpers/flowWorkspace.js";
import { ROOT } from "../helpers/runFlow.js";

function evidenceOf(dir: string, runId: string, storyId: string) {
  const lines = readFileSync(join(dir, ".flow/runs", runId, "evidence.ndjson"), "utf8")
    .split("\n")
    .filter(Boolean);
  return lines.map((l) => JSON.parse(l)).findLast((e: { storyId: string }) => e.storyId === storyId);
}

const entity = (name: string) => ({ name, entityType: "feature", observations: [`${name} exists`] });

describe("flow run", () => {
  it("passes a story against real servers, and only then writes passes: true", async () => {
    const ws = flowWorkspace();
    const before = ws.writePrd([
      {
        mavenSteps: [1, 5],
        acceptanceCriteria: ["entity: status-field", "entity: status-filter"],
        mcpTools: { step1: ["memory", "filesystem"], step5: ["memory"] },
        calls: {
          step1: [
            { tool: "memory__create_entities", args: { entities: [entity("status-field"), entity("status-filter")] } },
            {
              tool: "filesystem__write_file",
              args: { path: join(ws.files, "status.ts"), content: "export type Status = 'todo';\n" },
            },
          ],
        },
        verify: [{ run: [process.execPath, "-e", "require('fs').accessSync('files/status.ts')"] }],
      },
    ]);
    const result = await ws.flow(["run", "prd.json", "--json"]);
    expect(result.stderr).toBe("");
    expect(
      result.code,
      result.stdout
        .split("\n")
        .filter((l) => l.includes("finished"))
        .join("\n"),
    ).toBe(0);
    const events = parseEvents(result.stdout);
    expect(events.at(-1)).toMatchObject({ type: "run.finished", status: "passed", passed: 1 });
    const runId = events[0]?.runId ?? "";
    expect(ws.entities().sort()).toEqual(["status-field", "status-filter"]);
    expect(ws.read("status.ts")).toBe("export type Status = 'todo';\n");
    const after = readFileSync(ws.prd, "utf8");
    const note = `Passed in meshflow run ${runId} (evidence: .flow/runs/${runId}/evidence.ndjson).`;
    expect(after).toBe(
      before.replace('"passes": false', '"passes": true').replace('"notes": ""', `"notes": "${note}"`),
    );
    const evidence = evidenceOf(ws.dir, runId, "US-001");
    expect(evidence.steps[0].calls.map((c: { tool: string }) => c.tool)).toEqual([
      "memory__create_entities",
      "filesystem__write_file",
    ]);
    expect(evidence.gate.results[0].exitCode).toBe(0);
  });

  it("a failing tool call fails the step; the PRD stays byte-identical", async () => {
    const ws = flowWorkspace();
    const before = ws.writePrd([
      {
        mcpTools: { step1: ["filesystem"] },
        calls: { step1: [{ tool: "filesystem__read_text_file", args: { path: join(ws.files, "missing.txt") } }] },
      },
    ]);
    const result = await ws.flow(["run", "prd.json", "--json"]);
    expect(result.code).toBe(1);
    const events = parseEvents(result.stdout);
    expect(events.find((e) => e.type === "tool.result")).toMatchObject({ isError: true });
    expect(events.find((e) => e.type === "step.finished")).toMatchObject({ status: "failed" });
    expect(readFileSync(ws.prd, "utf8")).toBe(before);
  });

  it("a step without plan and calls is blocked and blocks the story; later stories still run", async () => {
    const ws = flowWorkspace();
    const before = ws.writePrd([
      { mavenSteps: [1, 7], mcpTools: { step1: ["memory"] } },
      { mcpTools: { step1: ["memory"] }, calls: { step1: [{ tool: "memory__read_graph", args: {} }] }, priority: 2 },
    ]);
    const result = await ws.flow(["run", "prd.json", "--json"]);
    expect(result.code).toBe(1);
    const events = parseEvents(result.stdout);
    const stories = events.filter((e) => e.type === "story.finished").map((e) => [e.storyId, e.status]);
    expect(stories).toEqual([
      ["US-001", "blocked"],
      ["US-002", "passed"],
    ]);
    const blocked = events.find((e) => e.type === "step.finished" && e.status === "blocked");
    expect(blocked?.type === "step.finished" && blocked.summary).toContain("no plan of its own");
    expect(events.filter((e) => e.type === "step.started" && e.storyId === "US-001")).toHaveLength(1);
    const after = JSON.parse(readFileSync(ws.prd, "utf8"));
    expect(after.userStories.map((s: { passes: boolean }) => s.passes)).toEqual([false, true]);
    expect(before).not.toBe(readFileSync(ws.prd, "utf8"));
  });

  it("a failing verify command keeps passes: false (byte-identical PRD), exit 1", async () => {
    const ws = flowWorkspace();
    const before = ws.writePrd([
      {
        mcpTools: { step1: ["memory"] },
        calls: { step1: [{ tool: "memory__read_graph", args: {} }] },
        verify: [
          { run: [process.execPath, "-e", "console.error('typecheck: 1 error'); process.exit(2)"], name: "typecheck" },
        ],
      },
    ]);
    const result = await ws.flow(["run", "prd.json", "--json"]);
    expect(result.code).toBe(1);
    const events = parseEvents(result.stdout);
    expect(events.find((e) => e.type === "gate.finished")).toMatchObject({ passed: false, commands: 1 });
    expect(readFileSync(ws.prd, "utf8")).toBe(before);
    const runId = events[0]?.runId ?? "";
    const evidence = evidenceOf(ws.dir, runId, "US-001");
    expect(evidence.gate.results[0]).toMatchObject({ exitCode: 2, tail: "typecheck: 1 error" });
  });

  it("an unresolvable name and an out-of-repertoire tool are explicit refusals", async () => {
    const ws = flowWorkspace();
    ws.writePrd([
      { mcpTools: { step1: ["memory"] }, calls: { step1: [{ tool: "memory__no_such_tool", args: {} }] } },
      {
        mcpTools: { step1: ["memory"] },
        calls: { step1: [{ tool: "filesystem__write_file", args: { path: join(ws.files, "x"), content: "x" } }] },
      },
      {
        mcpTools: { step1: ["memory"] },
        calls: { step1: [{ tool: "memory__create_entities", args: { entities: "x" } }] },
      },
    ]);
    const result = await ws.flow(["run", "prd.json", "--json"]);
    expect(result.code).toBe(1);
    const refusals = parseEvents(result.stdout).filter((e) => e.type === "tool.refused");
    expect(refusals.map((e) => [e.storyId, e.tool, e.code])).toEqual([
      ["US-001", "memory__no_such_tool", "tool_not_found"],
      ["US-002", "filesystem__write_file", "not_in_repertoire"],
      ["US-003", "memory__create_entities", "invalid_arguments"],
    ]);
    expect(ws.entities()).toEqual([]);
    const [notFound] = refusals;
    expect(notFound?.type === "tool.refused" && notFound.message).toMatch(/did you mean .*memory__/);
    expect(existsSync(join(ws.files, "x"))).toBe(false);
  });

  it("a read-only specialist's repertoire leaves out writing tools: refused, nothing written", async () => {
    const ws = flowWorkspace();
    const before = ws.writePrd([
      {
        mavenSteps: [8],
        mcpTools: { step8: ["filesystem"] },
        calls: { step8: [{ tool: "filesystem__write_file", args: { path: join(ws.files, "y"), content: "y" } }] },
      },
    ]);
    const result = await ws.flow(["run", "prd.json", "--json"]);
    expect(result.code).toBe(1);
    const events = parseEvents(result.stdout);
    expect(events.find((e) => e.type === "tool.refused")).toMatchObject({
      tool: "filesystem__write_file",
      code: "not_in_repertoire",
    });
    expect(events.find((e) => e.type === "step.started")).toMatchObject({ specialist: "security-agent" });
    expect(existsSync(join(ws.files, "y"))).toBe(false);
    expect(readFileSync(ws.prd, "utf8")).toBe(before);
  });

  it("names resolve through the skills folder's alias maps and prefixes", async () => {
    const ws = flowWorkspace();
    mkdirSync(join(ws.dir, "skills/aliases"), { recursive: true });
    writeFileSync(
      join(ws.dir, "skills/aliases/development-agent.yaml"),
      "specialist: development-agent\nprefixes: [kb_]\naliases:\n  remember: create_entities\n",
    );
    ws.writePrd([
      {
        mcpTools: { step1: ["memory"] },
        calls: {
          step1: [
            { tool: "remember", args: { entities: [entity("aliased")] } },
            { tool: "kb_read_graph", args: {} },
          ],
        },
      },
    ]);
    const dry = await ws.flow(["run", "prd.json", "--dry-run"], { FLOW_SKILLS: join(ws.dir, "skills") });
    expect(dry.stdout).toContain("✓ remember → memory__create_entities (alias)");
    expect(dry.stdout).toContain("✓ kb_read_graph → memory__read_graph (prefix)");
    const result = await ws.flow(["run", "prd.json", "--json"], { FLOW_SKILLS: join(ws.dir, "skills") });
    expect(result.code).toBe(0);
    expect(ws.entities()).toEqual(["aliased"]);
  });

  it("--dry-run resolves scripted calls and calls nothing", async () => {
    const ws = flowWorkspace();
    const before = ws.writePrd([
      {
        mcpTools: { step1: ["memory"] },
        calls: {
          step1: [
            { tool: "memory__create_entities", args: { entities: [entity("a")] } },
            { tool: "memory__nope", args: {} },
          ],
        },
      },
    ]);
    const result = await ws.flow(["run", "prd.json", "--dry-run"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("✓ memory__create_entities → memory__create_entities");
    expect(result.stdout).toContain("✗ memory__nope: tool_not_found");
    expect(result.stdout).toContain("dry run: nothing was called; 1 call(s) would be refused");
    expect(ws.entities()).toEqual([]);
    expect(existsSync(join(ws.dir, ".flow/runs"))).toBe(false);
    expect(readFileSync(ws.prd, "utf8")).toBe(before);
  });

  it("--dry-run tells a specialist's own think() apart from the story's scripted calls", async () => {
    const ws = flowWorkspace();
    ws.writePrd([
      {
        mavenSteps: [1, 2],
        mcpTools: { step1: ["memory"], step2: ["memory"] },
        calls: { step1: [{ tool: "memory__read_graph", args: {} }] },
        agentConfig: { "quality-agent": {} },
      },
    ]);
    const result = await ws.flow(["run", "prd.json", "--dry-run", "--agents", join(ROOT, "agents")]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /step 1 → development-agent \(\d+ tools from memory\): think\(\) of its own, with the story's scripted calls\n/,
    );
    expect(result.stdout).toMatch(
      /step 2 → development-agent \(\d+ tools from memory\): think\(\) of its own; the story declares no calls for this step/,
    );
    expect(result.stderr).toContain(
      'flow: warning: prd.json: $.userStories[0].agentConfig["quality-agent"]: no step of this story routes to "quality-agent", so these settings have no effect (steps: 1, 2 → development-agent)',
    );
    const fixtures = await ws.flow(["run", "prd.json", "--dry-run"]);
    expect(fixtures.code).toBe(1);
    expect(fixtures.stdout).toMatch(/step 2 → development-agent \(\d+ tools from memory\): BLOCKED: no plan, no calls/);
  });

  it("plain lines off a TTY; flow runs and flow status read the store", async () => {
    const ws = flowWorkspace();
    ws.writePrd([
      {
        mcpTools: { step1: ["memory"] },
        calls: { step1: [{ tool: "memory__read_graph", args: {} }] },
        agentConfig: { "quality-agent": { tailLines: 5 } },
      },
    ]);
    const result = await ws.flow(["run", "prd.json", "--run-id", "first-run"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      'flow: warning: prd.json: $.userStories[0].agentConfig["quality-agent"]: no step of this story routes to "quality-agent", so these settings have no effect (steps: 1 → development-agent)',
    );
    expect(result.stdout).toContain("US-001 step 1 → development-agent");
    expect(result.stdout).toContain("run first-run passed: 1 passed, 0 failed, 0 blocked");
    const runs = await ws.flow(["runs", "--json"]);
    expect(JSON.parse(runs.stdout).runs).toMatchObject([{ runId: "first-run", status: "passed", stories: 1 }]);
    const status = await ws.flow(["status", "first-run", "--json"]);
    expect(JSON.parse(status.stdout).stories).toMatchObject([
      { id: "US-001", status: "passed", steps: [{ step: 1, status: "passed", calls: 1 }] },
    ]);
    const missing = await ws.flow(["status", "first-rum"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('did you mean "first-run"');
  });

  it("a server that cannot start blocks only the stories that name it: the others run, exit 3", async () => {
    const ws = flowWorkspace();
    const before = ws.writePrd([
      {
        mcpTools: { step1: ["memory"] },
        calls: { step1: [{ tool: "memory__create_entities", args: { entities: [entity("kept")] } }] },
      },
      { mcpTools: { step1: ["broken"] } },
    ]);
    const config = JSON.parse(readFileSync(join(ws.dir, ".mcp.json"), "utf8"));
    config.mcpServers.broken = { command: join(ws.dir, "no-such-binary") };
    writeFileSync(join(ws.dir, ".mcp.json"), JSON.stringify(config));

    const dry = await ws.flow(["run", "prd.json", "--dry-run"]);
    expect(dry.code).toBe(3);
    expect(dry.stdout).toMatch(/US-002\n {2}step 1 → development-agent .*BLOCKED: MCP server "broken" is unusable/);
    expect(dry.stdout).toContain("memory__create_entities → memory__create_entities");

    const result = await ws.flow(["run", "prd.json", "--json"]);
    expect(result.code).toBe(3);
    const events = parseEvents(result.stdout);
    const finished = events.filter((e) => e.type === "story.finished");
    expect(finished).toEqual([
      expect.objectContaining({ storyId: "US-001", status: "passed" }),
      expect.objectContaining({ storyId: "US-002", status: "blocked" }),
    ]);
    expect(JSON.stringify(finished[1])).toMatch(/MCP server \\"broken\\" is unusable \(server_unreachable\)/);
    expect(ws.entities()).toEqual(["kept"]);
    // Only the story that passed is marked in the PRD.
    const after = JSON.parse(readFileSync(ws.prd, "utf8"));
    expect(after.userStories.map((s: { passes: boolean }) => s.passes)).toEqual([true, false]);
    expect(before).not.toBe(readFileSync(ws.prd, "utf8"));

    // --fail-fast still stops at the first story that did not pass.
    ws.writePrd([{ mcpTools: { step1: ["broken"] } }, { mcpTools: { step1: ["memory"] } }]);
    const fast = await ws.flow(["run", "prd.json", "--json", "--fail-fast"]);
    expect(fast.code).toBe(3);
    expect(parseEvents(fast.stdout).filter((e) => e.type === "story.finished")).toEqual([
      expect.objectContaining({ storyId: "US-001", status: "blocked" }),
    ]);
  });
});
