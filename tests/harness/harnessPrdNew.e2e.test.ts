import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ScriptedModelServer } from "@meshflow/model/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  codingAgentsInstalled,
  type HarnessName,
  harnessCall,
  harnessFlags,
  harnessWorkspace,
  offeredStepTools,
  turnRequests,
} from "../helpers/codingAgents.js";

// `flow prd new --harness`: the real Claude Code, OpenCode and Codex programs (pinned in
// tests/coding-agents) draft a PRD, thinking with a scripted model server; their only tools are
// meshflow's step server's: prd__submit_draft and the finishing tools.

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const HARNESSES: HarnessName[] = ["claude-code", "opencode", "codex"];

function draft(server: string) {
  return {
    project: "E2E",
    branchName: "flow/hello",
    description: "A hello file.",
    userStories: [
      {
        id: "US-001",
        title: "Write hello.txt",
        acceptanceCriteria: ["`files/hello.txt` contains `hello`"],
        mavenSteps: [7],
        mcpTools: { step7: [server] },
        priority: 1,
      },
    ],
  };
}

describe.skipIf(!codingAgentsInstalled() && process.env.CI !== "true")(
  "a harness drafts a PRD through meshflow's submit tool",
  { timeout: 120_000 },
  () => {
    it.each(HARNESSES)("%s: an unknown server is sent back, the repaired draft is written", async (harness) => {
      const started = await harnessWorkspace(harness);
      server = started.server;
      const { ws, script } = started;
      script.turns.push(
        { toolCalls: [harnessCall(harness, "prd__submit_draft", { prd: draft("github") })] },
        { toolCalls: [harnessCall(harness, "prd__submit_draft", { prd: draft("filesystem") })] },
        { text: "Drafted." },
      );
      const out = join(ws.dir, "drafted.json");
      const result = await ws.flow([
        "prd",
        "new",
        "--describe",
        "A hello file",
        "--out",
        out,
        "--no-discover",
        ...harnessFlags(harness),
      ]);
      expect(result.code, result.stderr).toBe(0);
      expect(existsSync(out)).toBe(true);
      const prd = JSON.parse(readFileSync(out, "utf8"));
      expect(prd.userStories[0].mcpTools).toEqual({ step7: ["filesystem"] });
      const [first, second] = turnRequests(started.server);
      if (!first || !second) throw new Error(`expected two turns, saw ${turnRequests(started.server).length}`);
      expect(offeredStepTools(harness, first).sort()).toEqual([
        "prd__submit_draft",
        "step_block",
        "step_fail",
        "step_pass",
      ]);
      // The problems of the first draft reached the program as its tool's result.
      expect(second.toolResults.map((r) => r.text).join("\n")).toContain('unknown MCP server "github"');
    });
  },
);
