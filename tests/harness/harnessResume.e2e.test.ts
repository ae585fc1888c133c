import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ScriptedModelServer, ScriptedReply } from "@meshflow/model/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  codingAgentsInstalled,
  harnessCall,
  harnessFlags,
  harnessWorkspace,
  killByHome,
  turnsSoFar,
} from "../helpers/codingAgents.js";
import { parseEvents } from "../helpers/flowWorkspace.js";

// Durable harness steps: `flow` killed with SIGKILL while Claude Code works a step (the program with
// it, as a crash would), then `flow resume`: Claude Code continues its own session, a call the journal
// holds as finished is answered from it when asked again, and no non-idempotent call runs twice.

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A story whose step 7 appends to a ledger through the slow server (not idempotent). */
function ledgerStory(files: string) {
  return {
    title: "Record the payment",
    description: "As an accountant I want one ledger entry.",
    acceptanceCriteria: ["ledger.txt holds one entry"],
    mavenSteps: [7],
    mcpTools: { step7: ["slow"] },
    verify: [
      {
        name: "one entry",
        run: [
          process.execPath,
          "-e",
          `process.exit(require("fs").readFileSync(${JSON.stringify(join(files, "ledger.txt"))}, "utf8") === "entry-1\\n" ? 0 : 1)`,
        ],
      },
    ],
  };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe.skipIf(!codingAgentsInstalled() && process.env.CI !== "true")(
  "a harness step after kill -9",
  { timeout: 120_000 },
  () => {
    it("flow resume continues Claude Code's session; the ledger entry asked for again is answered from the journal, written once", async () => {
      const { ws, server: s, script, home } = await harnessWorkspace("claude-code");
      server = s;
      const append = harnessCall("claude-code", "slow__append_line", { file: "ledger.txt", line: "entry-1" });
      let killed = false;
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const sessions: string[] = [];
      script.handler = async (request) => {
        if (!request.tools.length) return { text: "title" };
        const turn = turnsSoFar(request);
        const session = (request.body as { metadata?: { user_id?: string } }).metadata?.user_id ?? "";
        sessions.push(session);
        const replies: ScriptedReply[] = [
          { toolCalls: [append] },
          // After the kill the resumed session asks for the same entry again: meshflow answers it from
          // its journal instead of appending a second line.
          killed ? { toolCalls: [append] } : { text: "thinking" },
          { toolCalls: [harnessCall("claude-code", "step_pass", { summary: "recorded the entry" })] },
        ];
        if (turn === 1 && !killed) {
          await held; // the first attempt waits here until flow is killed
          return { error: { status: 500, message: "gone" } };
        }
        return replies[turn] ?? { text: "Done." };
      };
      ws.writePrd([ledgerStory(ws.files)]);
      const first = ws.spawnFlow(["run", "prd.json", "--json", ...harnessFlags("claude-code")]);
      const ledger = join(ws.files, "ledger.txt");
      // The turn with the call is journaled with Claude Code's session once its result is back: its
      // model.turn event says so. Killed before that, the resumed program would start a new session,
      // and the script's second ask would be a second entry, rightly run.
      await first.next((e) => e.type === "model.turn");
      await until(() => existsSync(ledger) && s.requests.filter((r) => r.tools.length).length >= 2, "turn 2");
      const runId = (first.events.find((e) => e.type === "run.started") as { runId: string }).runId;
      first.child.kill("SIGKILL");
      await first.exit;
      killed = true;
      killByHome(home);
      release();
      expect(readFileSync(ledger, "utf8")).toBe("entry-1\n");

      const resumed = await ws.flow(["resume", runId, "--json"]);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(readFileSync(ledger, "utf8")).toBe("entry-1\n");
      const events = parseEvents(resumed.stdout);
      const results = events.filter((e) => e.type === "tool.result") as Array<{ tool: string; replayed?: boolean }>;
      expect(results).toEqual([expect.objectContaining({ tool: "slow__append_line", replayed: true })]);
      expect(events.filter((e) => e.type === "tool.called")).toHaveLength(0);
      // The journaled turn came back as replayed, and the resumed program went on in the same session.
      const turns = events.filter((e) => e.type === "model.turn") as Array<{ replayed?: boolean; session?: string }>;
      expect(turns[0]).toMatchObject({ replayed: true });
      expect(turns[0]?.session).toBeTruthy();
      expect(turns.every((t) => t.session === turns[0]?.session)).toBe(true);
      expect(JSON.parse(readFileSync(ws.prd, "utf8")).userStories[0].passes).toBe(true);
    });

    it("a non-idempotent call started but never finished blocks the resumed step with outcome_unknown", async () => {
      const { ws, server: s, script, home } = await harnessWorkspace("claude-code");
      server = s;
      const waiting = harnessCall("claude-code", "slow__append_line_then_wait", {
        file: "ledger.txt",
        line: "entry-1",
        waitFor: "never.txt",
      });
      script.turns.push(
        { toolCalls: [waiting] },
        { toolCalls: [harnessCall("claude-code", "step_pass", { summary: "recorded the entry" })] },
      );
      ws.writePrd([ledgerStory(ws.files)]);
      const first = ws.spawnFlow(["run", "prd.json", "--json", ...harnessFlags("claude-code")]);
      const ledger = join(ws.files, "ledger.txt");
      await until(() => existsSync(ledger), "the entry");
      const runId = (first.events.find((e) => e.type === "run.started") as { runId: string }).runId;
      first.child.kill("SIGKILL");
      await first.exit;
      killByHome(home);

      const resumed = await ws.flow(["resume", runId, "--json"]);
      expect(resumed.code, resumed.stderr).toBe(1);
      expect(readFileSync(ledger, "utf8")).toBe("entry-1\n");
      const events = parseEvents(resumed.stdout);
      expect(events.find((e) => e.type === "tool.refused")).toMatchObject({ code: "outcome_unknown" });
      const step = events.find((e) => e.type === "step.finished") as { status: string; summary: string };
      expect(step.status).toBe("blocked");
      expect(step.summary).toContain("outcome_unknown");
    });
  },
);
