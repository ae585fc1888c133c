import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import type { ScriptedModelServer } from "@meshflow/model/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  CODING_AGENTS_BIN,
  codingAgentsInstalled,
  harnessCall,
  harnessFlags,
  harnessWorkspace,
  helloStory,
  turnRequests,
} from "../helpers/codingAgents.js";
import { parseEvents } from "../helpers/flowWorkspace.js";

// The harness's word is a claim: the gate, the guard and meshflow's own checks decide. And what goes
// wrong with the program (missing, crashing, a refused key, an unknown name) is said clearly.

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.skipIf(!codingAgentsInstalled() && process.env.CI !== "true")(
  "a harness's claim and its failures",
  { timeout: 120_000 },
  () => {
    it("claude-code claims step_pass but verify fails: the story fails", async () => {
      const { ws, server: s, script } = await harnessWorkspace("claude-code");
      server = s;
      const target = join(ws.files, "hello.txt");
      script.turns.push(
        { toolCalls: [harnessCall("claude-code", "filesystem__write_file", { path: target, content: "goodbye\n" })] },
        { toolCalls: [harnessCall("claude-code", "step_pass", { summary: "wrote hello.txt, all good" })] },
        { text: "Done." },
      );
      ws.writePrd([helloStory(ws.files)]);
      const run = await ws.flow(["run", "prd.json", "--json", ...harnessFlags("claude-code")]);
      expect(run.code, run.stderr).toBe(1);
      const events = parseEvents(run.stdout);
      expect(events.find((e) => e.type === "step.finished")).toMatchObject({ status: "passed" });
      expect(events.find((e) => e.type === "gate.finished")).toMatchObject({ passed: false });
      expect(events.find((e) => e.type === "story.finished")).toMatchObject({ status: "failed" });
      expect(JSON.parse(readFileSync(ws.prd, "utf8")).userStories[0].passes).toBe(false);
    });

    it("the guard locks while claude-code works: the run pauses (exit 130) and the story does not pass", async () => {
      const { ws, server: s, script } = await harnessWorkspace("claude-code");
      server = s;
      const target = join(ws.files, "hello.txt");
      script.turns.push(
        { toolCalls: [harnessCall("claude-code", "filesystem__write_file", { path: target, content: "hello\n" })] },
        {
          toolCalls: [
            harnessCall("claude-code", "filesystem__write_file", { path: `${target}.2`, content: "again\n" }),
          ],
        },
        {
          toolCalls: [harnessCall("claude-code", "filesystem__write_file", { path: `${target}.3`, content: "more\n" })],
        },
        { toolCalls: [harnessCall("claude-code", "step_pass", { summary: "wrote the files" })] },
        { text: "Done." },
      );
      ws.writePrd([helloStory(ws.files)]);
      const run = await ws.flow([
        "run",
        "prd.json",
        "--json",
        "--calls-per-minute",
        "1",
        ...harnessFlags("claude-code"),
      ]);
      // A write past the limit was refused: the run pauses there, resumable; the story is not concluded.
      expect(run.code, run.stderr).toBe(130);
      expect(run.stderr).toContain("paused: the guard locked (rate_limit_exceeded");
      const events = parseEvents(run.stdout);
      expect(events.some((e) => e.type === "tool.refused")).toBe(true);
      expect(events.find((e) => e.type === "story.finished")).toBeUndefined();
      expect(JSON.parse(readFileSync(ws.prd, "utf8")).userStories[0].passes).toBe(false);
    });

    it("the program is missing: exit 3 before the first story, naming the npm package", async () => {
      const { ws, server: s } = await harnessWorkspace("opencode", { PATH: process.env.PATH });
      server = s;
      ws.writePrd([helloStory(ws.files)]);
      const run = await ws.flow(["run", "prd.json", ...harnessFlags("opencode")]);
      expect(run.code).toBe(3);
      expect(run.stderr).toContain("npm install -D opencode-ai");
      expect(s.requests).toHaveLength(0);
    });

    it("the program exits non-zero: the step fails with the last lines of its stderr", async () => {
      // A stand-in "claude" on PATH before the real one: it says why on stderr and exits 7.
      const { ws, server: s } = await harnessWorkspace("claude-code");
      server = s;
      const bin = join(ws.dir, "fake-bin");
      const fake = join(bin, "claude");
      const lines = Array.from({ length: 30 }, (_, i) => `console.error("diagnostic line ${i + 1}");`).join("");
      mkdirSync(bin);
      writeFileSync(fake, `#!${process.execPath}\n${lines} process.exit(7);\n`);
      chmodSync(fake, 0o755);
      ws.writePrd([helloStory(ws.files)]);
      const run = await ws.flow(["run", "prd.json", "--json", ...harnessFlags("claude-code")], {
        PATH: `${bin}${delimiter}${CODING_AGENTS_BIN}${delimiter}${process.env.PATH ?? ""}`,
      });
      expect(run.code).toBe(1);
      const step = parseEvents(run.stdout).find((e) => e.type === "step.finished") as {
        status: string;
        summary: string;
      };
      expect(step.status).toBe("failed");
      expect(step.summary).toContain("harness_failed: claude-code exited with code 7");
      expect(step.summary).toContain("diagnostic line 30");
      expect(step.summary).toContain("diagnostic line 11");
      expect(step.summary).not.toContain("diagnostic line 10\n");
    });

    it("the scripted server answers 401: the run ends before its next story with exit 3 naming the key variable", async () => {
      const { ws, server: s } = await harnessWorkspace("claude-code", { ANTHROPIC_API_KEY: "sk-wrong-key" });
      server = s;
      ws.writePrd([helloStory(ws.files), { ...helloStory(ws.files), title: "Second" }]);
      const run = await ws.flow(["run", "prd.json", "--json", ...harnessFlags("claude-code")]);
      expect(run.code, run.stderr).toBe(3);
      expect(run.stderr).toContain("ANTHROPIC_API_KEY");
      const events = parseEvents(run.stdout);
      expect(events.filter((e) => e.type === "story.started")).toHaveLength(1);
      expect(events.find((e) => e.type === "step.finished")).toMatchObject({ status: "blocked" });
      expect((events.find((e) => e.type === "step.finished") as { summary: string }).summary).toContain("auth_failed");
    });

    it("an unknown harness: exit 2 listing the known ones", async () => {
      const { ws, server: s } = await harnessWorkspace("claude-code");
      server = s;
      ws.writePrd([helloStory(ws.files)]);
      const run = await ws.flow(["run", "prd.json", "--harness", "amp"]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('unknown harness "amp"; known: claude-code, opencode, codex');
      const prd = JSON.parse(readFileSync(ws.prd, "utf8"));
      prd.userStories[0].harness = { "development-agent": "gemini" };
      writeFileSync(ws.prd, JSON.stringify(prd));
      const fromPrd = await ws.flow(["run", "prd.json"]);
      expect(fromPrd.code).toBe(2);
      expect(fromPrd.stderr).toContain('unknown harness "gemini"');
    });

    it("--harness-builtin-tools: claude-code writes with its own Write tool; the evidence says so and records the diff", async () => {
      const { ws, server: s, script } = await harnessWorkspace("claude-code");
      server = s;
      execFileSync("git", ["init", "-q"], { cwd: ws.dir });
      execFileSync(
        "git",
        ["-c", "user.email=t@e", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "start"],
        {
          cwd: ws.dir,
        },
      );
      const own = join(ws.dir, "own.txt");
      script.turns.push(
        { toolCalls: [{ name: "Write", input: { file_path: own, content: "written by the program itself\n" } }] },
        { toolCalls: [harnessCall("claude-code", "step_pass", { summary: "wrote own.txt" })] },
        { text: "Done." },
      );
      ws.writePrd([{ title: "Own tools", mavenSteps: [1], mcpTools: { step1: ["filesystem"] } }]);
      const run = await ws.flow([
        "run",
        "prd.json",
        "--json",
        "--harness-builtin-tools",
        ...harnessFlags("claude-code"),
      ]);
      expect(readFileSync(own, "utf8")).toBe("written by the program itself\n");
      // Its own tool was offered this time, beside meshflow's.
      expect(turnRequests(s)[0]?.tools.map((t) => t.name)).toContain("Write");
      expect(run.code, run.stderr).toBe(0);
      const status = JSON.parse((await ws.flow(["status", "--json"])).stdout);
      const evidence = readFileSync(join(ws.dir, ".flow/runs", status.run.runId, "evidence.ndjson"), "utf8");
      expect(evidence).toContain('"builtinTools":true');
      expect(evidence).toContain("?? own.txt");
      expect(run.stderr).not.toContain("KEY");
    });
  },
);
