import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ScriptedModelServer } from "@meshflow/model/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  codingAgentsInstalled,
  type HarnessScript,
  harnessCall,
  harnessFlags,
  harnessWorkspace,
  turnRequests,
} from "../helpers/codingAgents.js";
import { parseEvents } from "../helpers/flowWorkspace.js";

// Claude Code with its own tools on, in a run that asks for approvals: what it would ask its user
// (a Bash command) goes to meshflow's approvals through --permission-prompt-tool, and flow approve
// from another process answers it. The pinned Claude Code, its scripted model, the real flow binary.

/** Scripts Claude Code's model: a Bash command that makes `file`, then the step passes. */
function scriptBashMakes(script: HarnessScript, file: string): void {
  script.turns.push(
    {
      toolCalls: [
        {
          id: "bash-1",
          name: "Bash",
          input: {
            command: `${process.execPath} -e 'require("fs").writeFileSync(process.argv[1], "made\\n")' ${file}`,
            description: "make a file",
          },
        },
      ],
    },
    { toolCalls: [harnessCall("claude-code", "step_pass", { summary: "ran the command" })] },
    { text: "Done." },
  );
}

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.skipIf(!codingAgentsInstalled() && process.env.CI !== "true")(
  "claude-code's permission prompts through meshflow's approvals",
  { timeout: 120_000 },
  () => {
    for (const decision of ["approve", "deny"] as const)
      it(`a Bash command waits for flow approve${decision === "deny" ? " --deny: the program reads the reason" : ": then it runs"}`, async () => {
        const { ws, server: s, script } = await harnessWorkspace("claude-code");
        server = s;
        // A repository: the step's change is the program's own, seen in the working tree's diff.
        execFileSync("git", ["init", "-q"], { cwd: ws.dir });
        execFileSync(
          "git",
          ["-c", "user.email=t@e", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "start"],
          {
            cwd: ws.dir,
          },
        );
        const made = join(ws.dir, "by-bash.txt");
        scriptBashMakes(script, made);
        ws.writePrd([{ title: "Own tools", mavenSteps: [1], mcpTools: { step1: ["filesystem"] } }]);
        const run = ws.spawnFlow([
          "run",
          "prd.json",
          "--json",
          "--harness-builtin-tools",
          "--approve",
          "destructive",
          "--wait-for-approval",
          "--run-id",
          "own",
          ...harnessFlags("claude-code"),
        ]);
        const asked = await run.next((e) => e.type === "approval.requested");
        expect(asked).toMatchObject({ tool: "claude-code__Bash", storyId: "US-001" });
        expect(asked.type === "approval.requested" && asked.rule).toBe(
          "--approve destructive (the tool is destructiveHint)",
        );
        expect(existsSync(made)).toBe(false);
        const decided = await ws.flow([
          "approve",
          "own",
          "--all",
          ...(decision === "deny" ? ["--deny", "--reason", "no shell today"] : []),
        ]);
        expect(decided.code, decided.stderr).toBe(0);
        const code = await run.exit;
        if (decision === "approve") {
          expect(code, run.stderr()).toBe(0);
          expect(readFileSync(made, "utf8")).toBe("made\n");
        } else {
          expect(code, run.stderr()).not.toBeNull();
          expect(existsSync(made)).toBe(false);
          // The program's next turn carries the denial as Bash's result.
          const sent = JSON.stringify(turnRequests(s).at(-1)?.messages ?? []);
          expect(sent).toContain("no shell today");
        }
      });

    /** A repository workspace for Claude Code with its own tools on. */
    async function ownToolsWorkspace() {
      const made = await harnessWorkspace("claude-code");
      server = made.server;
      execFileSync("git", ["init", "-q"], { cwd: made.ws.dir });
      execFileSync(
        "git",
        ["-c", "user.email=t@e", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "start"],
        { cwd: made.ws.dir },
      );
      made.ws.writePrd([{ title: "Own tools", mavenSteps: [1], mcpTools: { step1: ["filesystem"] } }]);
      return made;
    }

    it("a rule asking only for git push: another Bash command is allowed at once, nothing waits", async () => {
      const { ws, script } = await ownToolsWorkspace();
      mkdirSync(join(ws.dir, ".flow"), { recursive: true });
      writeFileSync(
        join(ws.dir, ".flow", "approvals.yaml"),
        JSON.stringify({
          rules: [{ server: "claude-code", tool: "Bash", args: { command: "\\bgit\\s+push\\b" }, reason: "pushes" }],
        }),
      );
      const made = join(ws.dir, "by-bash.txt");
      scriptBashMakes(script, made);
      // No --wait-for-approval: a prompt that waited would end the run paused (exit 4).
      const run = await ws.flow([
        "run",
        "prd.json",
        "--json",
        "--harness-builtin-tools",
        ...harnessFlags("claude-code"),
      ]);
      const events = parseEvents(run.stdout);
      expect(events.filter((e) => e.type === "approval.requested")).toEqual([]);
      expect(run.code, run.stderr).toBe(0);
      expect(readFileSync(made, "utf8")).toBe("made\n");
    });

    for (const mode of ["all", "destructive"] as const)
      it(`a Read outside the project ${mode === "all" ? "waits under --approve all" : "is allowed at once under --approve destructive"}`, async () => {
        const { ws, server: s, script } = await ownToolsWorkspace();
        const outside = join(mkdtempSync(join(tmpdir(), "meshflow-outside-")), "note.txt");
        writeFileSync(outside, "read me from outside\n");
        script.turns.push(
          { toolCalls: [{ id: "read-1", name: "Read", input: { file_path: outside } }] },
          { toolCalls: [harnessCall("claude-code", "step_pass", { summary: "read the note" })] },
          { text: "Done." },
        );
        const run = await ws.flow([
          "run",
          "prd.json",
          "--json",
          "--harness-builtin-tools",
          "--approve",
          mode,
          ...harnessFlags("claude-code"),
        ]);
        const asked = parseEvents(run.stdout).filter((e) => e.type === "approval.requested");
        if (mode === "all") {
          // The program did ask: the prompt is the run's question, and the run pauses on it.
          expect(asked).toMatchObject([{ tool: "claude-code__Read", rule: "--approve all" }]);
          expect(run.code, run.stderr).toBe(4);
        } else {
          expect(asked).toEqual([]);
          expect(run.code, run.stderr).toBe(0);
          const sent = JSON.stringify(turnRequests(s).at(-1)?.messages ?? []);
          expect(sent).toContain("read me from outside");
        }
      });
  },
);
