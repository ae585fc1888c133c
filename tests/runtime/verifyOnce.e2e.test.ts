import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { flowWorkspace, parseEvents, serverEntry } from "../helpers/flowWorkspace.js";
import { FLOW_BIN, ROOT } from "../helpers/runFlow.js";

function evidenceOf(dir: string, runId: string, storyId: string) {
  return readFileSync(join(dir, ".flow/runs", runId, "evidence.ndjson"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .findLast((e: { storyId: string }) => e.storyId === storyId);
}

/**
 * A workspace whose `workspace` server is our workspace-server (run_command: a code_execute tool) and
 * `filesystem` the npm filesystem server, with the shipped specialists: step 5 is the quality-agent.
 */
function verifyWorkspace() {
  const ws = flowWorkspace({ env: { FLOW_AGENTS: join(ROOT, "agents"), FLOW_SKILLS: join(ROOT, "skills") } });
  writeFileSync(
    join(ws.dir, ".mcp.json"),
    JSON.stringify({
      mcpServers: {
        workspace: {
          command: process.execPath,
          args: [FLOW_BIN, "workspace-server", "--root", ws.dir, "--allow", process.execPath],
        },
        filesystem: {
          command: process.execPath,
          args: [serverEntry("@modelcontextprotocol/server-filesystem"), ws.dir],
        },
      },
    }),
  );
  // Each execution of the verify command appends one line: the file counts them.
  const verify = [
    { name: "count", run: [process.execPath, "-e", "require('fs').appendFileSync('runs.txt', 'ran\\n')"] },
  ];
  const executions = () =>
    existsSync(join(ws.dir, "runs.txt")) ? readFileSync(join(ws.dir, "runs.txt"), "utf8").split("\n").length - 1 : 0;
  return { ws, verify, executions };
}

describe("the completion gate after step 5", () => {
  it("does not run again a verify command that passed in step 5 with nothing written since, and says so", async () => {
    const { ws, verify, executions } = verifyWorkspace();
    ws.writePrd([{ mavenSteps: [5], mcpTools: { step5: ["workspace"] }, verify }]);
    const result = await ws.flow(["run", "prd.json", "--json"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(executions()).toBe(1);
    const events = parseEvents(result.stdout);
    const gate = events.find((e) => e.type === "gate.finished");
    expect(gate).toMatchObject({
      passed: true,
      commands: 1,
      summary: "1 verify command passed (1 reused from step 5: passed there, nothing written since)",
    });
    const evidence = evidenceOf(ws.dir, events[0]?.runId ?? "", "US-001");
    expect(evidence.gate.results[0]).toMatchObject({
      name: "count",
      exitCode: 0,
      reused: { step: 5, tool: "workspace__run_command" },
    });
  });

  it("runs it again when a later step wrote to the workspace", async () => {
    const { ws, verify, executions } = verifyWorkspace();
    ws.writePrd([
      {
        mavenSteps: [5, 7],
        mcpTools: { step5: ["workspace"], step7: ["filesystem"] },
        calls: {
          step7: [{ tool: "filesystem__write_file", args: { path: join(ws.dir, "later.txt"), content: "x\n" } }],
        },
        verify,
      },
    ]);
    const result = await ws.flow(["run", "prd.json", "--json"]);
    expect(result.code).toBe(0);
    expect(executions()).toBe(2);
    const gate = parseEvents(result.stdout).find((e) => e.type === "gate.finished");
    expect(gate).toMatchObject({ passed: true, summary: "1 verify command passed" });
  });
});
