import { writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import type { RunEvent } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { flowWorkspace, parseEvents } from "../helpers/flowWorkspace.js";
import { ROOT } from "../helpers/runFlow.js";

// Specialists consulting each other in real `flow run` processes: the mesh fixtures (their calls,
// then the consultations their agentConfig asks for) and the shipped security-agent, against the
// real filesystem server and our slow server.

const MESH_AGENTS = [join(ROOT, "tests/fixtures/agents-mesh"), join(ROOT, "agents/security-agent")].join(delimiter);
// The built-in skills classify the filesystem server's tools, which security-agent finds its tools by.
const meshWorkspace = (skills = true) =>
  flowWorkspace({ agents: MESH_AGENTS, ...(skills ? { env: { FLOW_SKILLS: join(ROOT, "skills") } } : {}) });
const append = (line: string) => ({ tool: "slow__append_line", args: { file: "log.txt", line } });
const of = <T extends RunEvent["type"]>(events: RunEvent[], type: T) =>
  events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);

describe("ctx.consult in flow run", () => {
  it("a development step consults security-agent, which finds a planted secret: the step fails", async () => {
    const ws = meshWorkspace();
    writeFileSync(join(ws.files, "config.js"), 'export const key = "AKIAIOSFODNN7EXAMPLE";\n');
    const before = ws.writePrd([
      {
        mavenSteps: [1],
        mcpTools: { step1: ["filesystem"] },
        agentConfig: { "development-agent": { ask: ["security-agent"] } },
      },
    ]);
    const run = await ws.flow(["run", "prd.json", "--json", "--run-id", "secret"]);
    expect(run.code).toBe(1);
    const events = parseEvents(run.stdout);
    expect(of(events, "consult.started")).toEqual([
      expect.objectContaining({
        storyId: "US-001",
        step: 1,
        specialist: "security-agent",
        by: "development-agent",
        depth: 1,
        consult: "US-001/step1/security-agent.1",
      }),
    ]);
    const done = of(events, "consult.done")[0];
    expect(done).toMatchObject({ specialist: "security-agent", status: "failed" });
    expect(done?.summary).toContain("config.js:1: aws-access-key-id");
    expect(done?.summary).not.toContain("AKIAIOSFODNN7EXAMPLE");
    // The consultation's calls are its own: keyed and marked with its id.
    const calls = of(events, "tool.called");
    expect(calls.length).toBeGreaterThan(0);
    for (const c of calls) {
      expect(c.consult).toBe("US-001/step1/security-agent.1");
      expect(c.key).toContain("secret/US-001/step1/security-agent.1/");
    }
    expect(of(events, "step.finished")[0]).toMatchObject({ status: "failed" });
    expect(of(events, "step.finished")[0]?.summary).toContain("security-agent failed");
    expect(ws.read("../prd.json")).toBe(before);
    const status = await ws.flow(["status", "secret"]);
    expect(status.stdout).toMatch(
      /step 1 development-agent[^\n]*\n\s+✗ consult security-agent \(asked by development-agent/,
    );
  });

  it("a clean workspace: the consultation passes and so does the story", async () => {
    const ws = meshWorkspace();
    writeFileSync(join(ws.files, "ok.js"), "export const answer = 42;\n");
    ws.writePrd([
      {
        mcpTools: { step1: ["filesystem"] },
        agentConfig: { "development-agent": { ask: ["security-agent"] } },
      },
    ]);
    const run = await ws.flow(["run", "prd.json", "--json"]);
    expect(run.code).toBe(0);
    expect(of(parseEvents(run.stdout), "consult.done")[0]).toMatchObject({ status: "passed" });
  });

  it("refuses a consultation cycle and an undeclared consultation, naming specialists, story and step", async () => {
    const ws = meshWorkspace();
    ws.writePrd([
      {
        mavenSteps: [5],
        mcpTools: { step5: ["slow"] },
        consult: { "quality-agent": ["development-agent"], "development-agent": ["quality-agent"] },
        agentConfig: {
          "quality-agent": { ask: ["development-agent"] },
          "development-agent": { ask: ["quality-agent"] },
        },
      },
      {
        mcpTools: { step1: ["slow"] },
        agentConfig: { "development-agent": { ask: ["refactor-agent"] } },
      },
    ]);
    const run = await ws.flow(["run", "prd.json", "--json"]);
    expect(run.code).toBe(1);
    const [cycle, refused] = of(parseEvents(run.stdout), "step.finished");
    expect(cycle?.status).toBe("failed");
    expect(cycle?.summary).toContain(
      "consult_cycle: development-agent may not consult quality-agent in US-001 step 5: quality-agent → development-agent → quality-agent is a cycle",
    );
    expect(refused?.summary).toContain(
      "consult_refused: development-agent may not consult refactor-agent in US-002 step 1: it may consult security-agent",
    );
  });

  it("stops at depth 2: a consultation's consultation may not consult again", async () => {
    const ws = meshWorkspace();
    ws.writePrd([
      {
        mcpTools: { step1: ["slow"] },
        consult: {
          "development-agent": ["quality-agent"],
          "quality-agent": ["refactor-agent"],
          "refactor-agent": ["design-agent"],
        },
        agentConfig: {
          "development-agent": { ask: ["quality-agent"] },
          "quality-agent": { ask: ["refactor-agent"] },
          "refactor-agent": { ask: ["design-agent"] },
        },
      },
    ]);
    const run = await ws.flow(["run", "prd.json", "--json"]);
    expect(run.code).toBe(1);
    const events = parseEvents(run.stdout);
    expect(of(events, "consult.started").map((e) => [e.specialist, e.depth, e.consult])).toEqual([
      ["quality-agent", 1, "US-001/step1/quality-agent.1"],
      ["refactor-agent", 2, "US-001/step1/quality-agent.1/refactor-agent.1"],
    ]);
    expect(of(events, "step.finished")[0]?.summary).toContain(
      "consult_depth: refactor-agent may not consult design-agent in US-001 step 1: development-agent → quality-agent → refactor-agent is already 2 consultation(s) deep (the limit is 2)",
    );
  });

  it("kill -9 during a consultation, then flow resume: resumes inside it, no tool call runs twice", async () => {
    const ws = meshWorkspace(false);
    ws.writePrd([
      {
        mcpTools: { step1: ["slow"] },
        calls: { step1: [append("step")] },
        consult: { "development-agent": ["quality-agent"] },
        agentConfig: {
          "development-agent": { ask: ["quality-agent"] },
          "quality-agent": {
            calls: [append("consulted"), { tool: "slow__wait_for", args: { file: "release" } }, append("after")],
          },
        },
      },
    ]);
    const run = ws.spawnFlow(["run", "prd.json", "--json", "--run-id", "killed"]);
    await run.next((e) => e.type === "tool.called" && e.tool === "slow__wait_for");
    run.child.kill("SIGKILL");
    await run.exit;
    expect(ws.read("log.txt")).toBe("step\nconsulted\n");
    writeFileSync(join(ws.files, "release"), "");

    const resumed = await ws.flow(["resume", "killed", "--json"]);
    expect(resumed.code).toBe(0);
    expect(ws.read("log.txt")).toBe("step\nconsulted\nafter\n");
    const events = parseEvents(resumed.stdout);
    expect(events[0]).toMatchObject({ type: "run.resumed" });
    expect(events[0]?.type === "run.resumed" && events[0].state).toBe(
      '"working" in consultation US-001/step1/quality-agent.1',
    );
    const replayed = of(events, "tool.result")
      .filter((e) => e.replayed)
      .map((e) => [e.tool, e.consult ?? "step"]);
    expect(replayed).toEqual([
      ["slow__append_line", "step"],
      ["slow__append_line", "US-001/step1/quality-agent.1"],
    ]);
    expect(of(events, "tool.called").map((e) => e.tool)).toEqual(["slow__wait_for", "slow__append_line"]);
    expect(of(events, "consult.done")[0]).toMatchObject({ status: "passed", calls: 3 });
    expect(JSON.parse(ws.read("../prd.json")).userStories[0].passes).toBe(true);
  });
});
