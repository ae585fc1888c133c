import { createSpecialistHarness, type SpecialistHarness } from "@meshflow/runtime/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FixtureFiles,
  filesystemServer,
  fixtureFiles,
  workspaceServer,
} from "../../tests/helpers/agentFixtures.js";
import qualityAgent from "./agent.js";
import { commandArguments } from "./runVerifyCommand.js";

const OK_TEST = `import test from "node:test";
import assert from "node:assert/strict";
import { add } from "../src/add.js";
test("adds", () => assert.equal(add(2, 3), 5));
`;
const BAD_TEST = `import test from "node:test";
import assert from "node:assert/strict";
import { add } from "../src/add.js";
test("adds wrongly", () => assert.equal(add(2, 2), 5, "PLANTED: two and two is not five"));
`;

describe("quality-agent", () => {
  let ws: FixtureFiles;
  let harness: SpecialistHarness;

  beforeAll(async () => {
    ws = fixtureFiles({
      "package.json": '{ "type": "module" }\n',
      "src/add.js": "export const add = (a, b) => a + b;\n",
      "test/ok.test.js": OK_TEST,
      "test/bad.test.js": BAD_TEST,
    });
    harness = await createSpecialistHarness({
      servers: {
        workspace: workspaceServer(ws.root, ["node"]),
        second: workspaceServer(ws.root, ["node"]),
        filesystem: filesystemServer(ws.root),
      },
    });
  });
  afterAll(async () => {
    await harness?.close();
    ws?.cleanup();
  });

  const story = (verify: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}) => ({
    mavenSteps: [5],
    mcpTools: { step5: ["workspace"] },
    verify: verify as Array<{ run: string[] }>,
    ...extra,
  });

  it("runs the story's verify commands through the code_execute tool and passes when they pass", async () => {
    const run = await harness.run(qualityAgent, { story: story([{ run: ["node", "--test", "test/ok.test.js"] }]) });
    expect(run.status).toBe("passed");
    expect(run.summary).toBe("1 verify command passed through workspace__run_command");
    expect(run.calls).toMatchObject([{ tool: "workspace__run_command", isError: false, destructive: true }]);
  });

  it("fails with the failing command's output tail", async () => {
    const run = await harness.run(qualityAgent, {
      story: story([
        { run: ["node", "--test", "test/bad.test.js"], name: "unit tests" },
        { run: ["node", "--test", "test/ok.test.js"] },
      ]),
    });
    expect(run.status).toBe("failed");
    expect(run.summary).toMatch(/^verify "unit tests" failed \(exit 1\); output tail: /);
    const evidence = run.evidence.at(-1) as { commands: Array<{ status: string; tail?: string }> };
    // stopOnFailure: the second command did not run.
    expect(evidence.commands).toHaveLength(1);
    expect(evidence.commands[0]?.tail).toContain("PLANTED: two and two is not five");
    expect(run.calls).toHaveLength(1);
  });

  it("fails a command that times out", async () => {
    const run = await harness.run(qualityAgent, {
      story: story([{ run: ["node", "-e", "setTimeout(() => {}, 60000)"], timeoutMs: 300 }]),
    });
    expect(run.status).toBe("failed");
    expect(run.summary).toContain("(timed out)");
  });

  it("blocks when the command could not run (off the server's allowlist)", async () => {
    const run = await harness.run(qualityAgent, { story: story([{ run: ["npm", "test"] }]) });
    expect(run.status).toBe("blocked");
    expect(run.summary).toMatch(
      /^verify "npm test" could not run through workspace__run_command: command_not_allowed: command "npm"/,
    );
  });

  it("blocks without a code_execute tool, and without verify commands", async () => {
    const noTool = await harness.run(qualityAgent, {
      story: story([{ run: ["node", "--test"] }], { mcpTools: { step5: ["filesystem"] } }),
    });
    expect(noTool.status).toBe("blocked");
    expect(noTool.summary).toBe("no code_execute tool in the repertoire of step 5 (servers: filesystem)");
    expect(noTool.calls).toEqual([]);

    const nothing = await harness.run(qualityAgent, {
      story: { mavenSteps: [5], id: "US-007" },
      stepServers: ["workspace"],
    });
    expect(nothing.status).toBe("blocked");
    expect(nothing.summary).toBe(
      'nothing to check: US-007 has no verify commands (add them to the story, e.g. "verify": [{ "run": ["npm", "test"] }])',
    );
  });

  it("does not pick silently between two code_execute tools; the story's settings choose", async () => {
    const two = { step5: ["workspace", "second"] };
    const ambiguous = await harness.run(qualityAgent, {
      story: story([{ run: ["node", "--test", "test/ok.test.js"] }], { mcpTools: two }),
    });
    expect(ambiguous.status).toBe("blocked");
    expect(ambiguous.summary).toContain("several code_execute tools (workspace__run_command, second__run_command)");

    const chosen = await harness.run(qualityAgent, {
      story: story([{ run: ["node", "--test", "test/ok.test.js"] }], {
        mcpTools: two,
        agentConfig: { "quality-agent": { tool: "second__run_command" } },
      }),
    });
    expect(chosen.status).toBe("passed");
    expect(chosen.calls.map((c) => c.tool)).toEqual(["second__run_command"]);
  });
});

describe("commandArguments", () => {
  const tool = {
    name: "run_command",
    qualifiedName: "workspace__run_command",
    server: "workspace",
    inputSchema: { type: "object", properties: { command: {}, args: {}, cwd: {} } },
  } as unknown as Parameters<typeof commandArguments>[0];

  it("gives a verify cwd as the folder it names from the PRD's folder, whatever the tool's root", () => {
    // A PRD in prd/ with "cwd": ".." meant the project's root; the workspace server read ".." from its own
    // root (the project) and refused it as outside.
    expect(commandArguments(tool, { run: ["npm", "test"], cwd: ".." }, "/home/me/app/prd")).toEqual({
      command: "npm",
      args: ["test"],
      cwd: "/home/me/app",
    });
    expect(commandArguments(tool, { run: ["npm", "test"] }, "/home/me/app/prd")).toEqual({
      command: "npm",
      args: ["test"],
    });
  });
});
