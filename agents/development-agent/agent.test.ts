import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createSpecialistHarness, type SpecialistHarness } from "@meshflow/runtime/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureFiles, filesystemServer, fixtureFiles, memoryServer } from "../../tests/helpers/agentFixtures.js";
import developmentAgent from "./agent.js";

describe("development-agent", () => {
  let ws: FixtureFiles;
  let memoryFile: string;
  let harness: SpecialistHarness;

  beforeAll(async () => {
    ws = fixtureFiles({ "src/index.js": "export {};\n" });
    memoryFile = ws.memoryFile;
    harness = await createSpecialistHarness({
      servers: { filesystem: filesystemServer(ws.root), memory: memoryServer(memoryFile) },
    });
  });
  afterAll(async () => {
    await harness?.close();
    ws?.cleanup();
  });

  it("executes the step's scripted calls against the real servers and passes when all succeed", async () => {
    const run = await harness.run(developmentAgent, {
      step: 2,
      story: {
        mavenSteps: [2],
        mcpTools: { step2: ["filesystem", "memory"] },
        calls: {
          step2: [
            { tool: "write_file", args: { path: "src/due.js", content: "export const due = (d) => new Date(d);\n" } },
            {
              tool: "memory__create_entities",
              args: { entities: [{ name: "due-date", entityType: "feature", observations: ["parsed with Date"] }] },
            },
          ],
        },
      },
    });
    expect(run.status).toBe("passed");
    expect(run.summary).toBe("2 scripted calls succeeded");
    expect(readFileSync(join(ws.root, "src/due.js"), "utf8")).toBe("export const due = (d) => new Date(d);\n");
    expect(readFileSync(memoryFile, "utf8")).toContain('"name":"due-date"');
    expect(run.calls.map((c) => [c.tool, c.destructive])).toEqual([
      ["filesystem__write_file", true],
      ["memory__create_entities", false],
    ]);
  });

  it("fails with the failing call's error, and runs nothing after it", async () => {
    const run = await harness.run(developmentAgent, {
      step: 7,
      story: {
        mavenSteps: [7],
        mcpTools: { step7: ["filesystem"] },
        calls: {
          step7: [
            { tool: "read_text_file", args: { path: "src/nowhere.js" } },
            { tool: "write_file", args: { path: "src/after.js", content: "x" } },
          ],
        },
      },
    });
    expect(run.status).toBe("failed");
    expect(run.summary).toMatch(/^call 1 of 2 \(read_text_file\) failed: .*ENOENT/);
    expect(existsSync(join(ws.root, "src/after.js"))).toBe(false);
  });

  it("fails a call to a server the step does not name (refused, never sent)", async () => {
    const run = await harness.run(developmentAgent, {
      step: 9,
      story: {
        mavenSteps: [9],
        mcpTools: { step9: ["memory"] },
        calls: { step9: [{ tool: "filesystem__write_file", args: { path: "x", content: "" } }] },
      },
    });
    expect(run.status).toBe("failed");
    expect(run.summary).toContain("not_in_repertoire");
    expect(run.events.map((e) => e.type)).toEqual(["tool.refused"]);
  });

  it("is blocked without a plan", async () => {
    const run = await harness.run(developmentAgent, { step: 1, stepServers: ["memory"] });
    expect(run.status).toBe("blocked");
    expect(run.summary).toBe(
      'no plan for step 1: add calls for step1 to US-TEST, or configure a model (--model, "model" in the PRD or story, FLOW_MODEL)',
    );
    expect(run.calls).toEqual([]);
  });
});
