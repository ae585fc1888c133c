import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { RunEvent } from "@meshflow/core";
import type { ScriptedModelServer } from "@meshflow/model/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  CODEX_REMAINING_TOOLS,
  codingAgentsInstalled,
  type HarnessName,
  harnessCall,
  harnessFlags,
  harnessOwnTools,
  harnessWorkspace,
  helloStory,
  KEY,
  offeredStepTools,
  turnRequests,
} from "../helpers/codingAgents.js";
import { parseEvents } from "../helpers/flowWorkspace.js";

// Coding agents as specialists: the real Claude Code, OpenCode and Codex programs (pinned in
// tests/coding-agents) work a story's step, thinking with a scripted model server over their own wire
// formats (Anthropic Messages, OpenAI-compatible Chat Completions, OpenAI Responses). Their only tools
// are those meshflow's step server offers; every call goes through meshflow to the real filesystem
// server, and the gate decides.

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const HARNESSES: HarnessName[] = ["claude-code", "opencode", "codex"];

describe.skipIf(!codingAgentsInstalled() && process.env.CI !== "true")(
  "a harness works a step through meshflow's tools",
  { timeout: 120_000 },
  () => {
    it.each(HARNESSES)(
      "%s writes a file through meshflow's filesystem tools: journal, events and evidence hold the call; it is offered exactly the step's tools",
      async (harness) => {
        const started = await harnessWorkspace(harness);
        server = started.server;
        const { ws, script } = started;
        const target = join(ws.files, "hello.txt");
        script.turns.push(
          { toolCalls: [harnessCall(harness, "filesystem__write_file", { path: target, content: "hello\n" })] },
          { toolCalls: [harnessCall(harness, "step_pass", { summary: "wrote hello.txt" })] },
          { text: "The step is done." },
        );
        ws.writePrd([helloStory(ws.files)]);

        // The dry run names the harness and the tools its step server would offer.
        const plan = await ws.flow(["run", "prd.json", "--dry-run", "--json", ...harnessFlags(harness)]);
        expect(plan.code, plan.stderr).toBe(0);
        const dry = JSON.parse(plan.stdout).stories[0].steps[0];
        expect(dry.harness.name).toBe(harness);
        const served: string[] = dry.harness.tools;
        expect(served).toEqual(
          expect.arrayContaining(["filesystem__write_file", "step_pass", "step_fail", "step_block"]),
        );

        const run = await ws.flow(["run", "prd.json", "--json", ...harnessFlags(harness)]);
        expect(run.stderr).not.toContain(KEY);
        expect(run.code, run.stderr).toBe(0);
        expect(readFileSync(target, "utf8")).toBe("hello\n");
        expect(JSON.parse(readFileSync(ws.prd, "utf8")).userStories[0].passes).toBe(true);

        // Every request of the harness's turns offered exactly the step's tools, nothing of its own.
        const turns = turnRequests(started.server);
        expect(turns.length).toBeGreaterThanOrEqual(2);
        for (const request of turns) {
          expect(offeredStepTools(harness, request).sort()).toEqual([...served].sort());
          expect(harnessOwnTools(harness, request)).toEqual(harness === "codex" ? CODEX_REMAINING_TOOLS : []);
        }

        // The write went through meshflow: its events, the journal and the step's evidence.
        const events = parseEvents(run.stdout);
        const called = events.filter((e) => e.type === "tool.called");
        expect(called.map((e) => (e as { tool: string }).tool)).toEqual(["filesystem__write_file"]);
        expect(events.find((e) => e.type === "tool.result")).toMatchObject({
          tool: "filesystem__write_file",
          isError: false,
        });
        const harnessTurns = events.filter(
          (e): e is Extract<RunEvent, { type: "model.turn" }> => e.type === "model.turn",
        );
        expect(harnessTurns.length).toBeGreaterThanOrEqual(1);
        for (const turn of harnessTurns) expect(turn.provider).toBe(harness);
        expect(harnessTurns.flatMap((t) => t.toolCalls)).toContain("filesystem__write_file");

        const status = JSON.parse((await ws.flow(["status", "--json"])).stdout);
        const runDir = join(ws.dir, ".flow/runs", status.run.runId);
        const journal = readFileSync(join(runDir, "journal.ndjson"), "utf8");
        expect(journal).toContain('"tool":"filesystem__write_file"');
        const evidence = JSON.stringify(status.stories[0]);
        expect(evidence).toContain("filesystem__write_file");
        // The harness's words reach the events (shortened), and its turns and their tokens flow status.
        expect(harnessTurns.map((t) => t.text ?? "").join(" ")).toContain("The step is done.");
        expect(status.run.tokens.turns).toBe(harnessTurns.length);
        expect(status.run.tokens.input).toBeGreaterThan(0);
        // Claude Code and OpenCode say what a step cost (the scripted model is in no price list: 0), and
        // meshflow passes that on; Codex reports no cost, and none is made up.
        if (harness === "codex") expect(status.run.tokens.costUsd).toBeUndefined();
        else expect(typeof status.run.tokens.costUsd).toBe("number");
        for (const file of ["events.ndjson", "journal.ndjson", "run.json"])
          expect(readFileSync(join(runDir, file), "utf8")).not.toContain(KEY);
      },
    );
  },
);
