import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RunEvent } from "@meshflow/core";
import { ScriptedModelServer } from "@meshflow/model/testing";
import { afterEach, describe, expect, it } from "vitest";
import { parseEvents, serverEntry, testStories } from "../helpers/flowWorkspace.js";
import { FLOW_BIN, flowEnv, runFlow } from "../helpers/runFlow.js";

const AGENTS = fileURLToPath(new URL("./agents", import.meta.url));

/**
 * A git repository in a temporary folder whose filesystem MCP server is rooted at `${FLOW_WORKSPACE}`
 * (the repository itself when unset): with --parallel, each story's server is rooted at its worktree.
 */
function repository(more: Record<string, string | undefined> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-worktrees-"));
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8" });
  git("init", "-q", "-b", "main");
  git("config", "user.name", "Meshflow Test");
  git("config", "user.email", "test@meshflow.invalid");
  git("config", "commit.gpgsign", "false");
  const config = {
    mcpServers: {
      filesystem: {
        command: process.execPath,
        args: [serverEntry("@modelcontextprotocol/server-filesystem"), `\${FLOW_WORKSPACE:-${dir}}`],
      },
    },
  };
  writeFileSync(join(dir, ".mcp.json"), `${JSON.stringify(config, null, 2)}\n`);
  mkdirSync(join(dir, "no-skills"));
  writeFileSync(join(dir, "no-skills", ".keep"), "");
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src", "shared.txt"), "one\ntwo\nthree\n");
  git("add", "-A");
  git("commit", "-q", "-m", "start");
  const env = { FLOW_AGENTS: AGENTS, FLOW_SKILLS: join(dir, "no-skills"), FLOW_HOME: undefined, ...more };
  return {
    dir,
    git,
    flow: (args: readonly string[]) => runFlow(args, { cwd: dir, env }),
    /** Starts `flow <args>` in the background; its exit code when it ends. */
    spawn(args: readonly string[]) {
      const child = spawn(process.execPath, [FLOW_BIN, ...args], { cwd: dir, env: flowEnv(env), stdio: "ignore" });
      const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
      return { child, exit };
    },
    /** Subjects and files of the commits after the set-up one, oldest first (merges included). */
    commits(): Array<{ subject: string; files: string[]; parents: number }> {
      const ids = git("rev-list", "--reverse", "HEAD").trim().split("\n").slice(1);
      return ids.map((id) => ({
        subject: git("log", "-1", "--format=%s", id).trim(),
        files: git("show", "--name-only", "--format=", id).trim().split("\n").filter(Boolean).sort(),
        parents: git("log", "-1", "--format=%P", id).trim().split(" ").length,
      }));
    },
    branches: () =>
      git("branch", "--format=%(refname:short)")
        .trim()
        .split("\n")
        .filter((b) => b.startsWith("flow/")),
    worktrees: () =>
      git("worktree", "list", "--porcelain")
        .split("\n")
        .filter((l) => l.startsWith("worktree ")).length - 1,
    prd: () =>
      JSON.parse(readFileSync(join(dir, "prd.json"), "utf8")) as {
        userStories: Array<{ id: string; passes: boolean }>;
      },
  };
}

type Repo = ReturnType<typeof repository>;

/** A story writing `content` to `file` (relative: in the story's worktree) through the filesystem server. */
function writes(file: string, content: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    mcpTools: { step1: ["filesystem"] },
    calls: { step1: [{ tool: "filesystem__write_file", args: { path: file, content } }] },
    ...extra,
  };
}

function writePrd(repo: Repo, stories: Array<Record<string, unknown>>): void {
  const text = `${JSON.stringify({ project: "Worktrees", userStories: testStories(stories) }, null, 2)}\n`;
  writeFileSync(join(repo.dir, "prd.json"), text);
  // The PRD is part of the repository, as a project's PRD is.
  repo.git("add", "prd.json");
  repo.git("commit", "-q", "-m", "prd");
}

const KEY = "sk-test-meshflow";
let server: ScriptedModelServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const finished = (events: RunEvent[]) =>
  Object.fromEntries(
    events.flatMap((e) => (e.type === "story.finished" ? [[e.storyId, { status: e.status, summary: e.summary }]] : [])),
  );

describe("flow run --parallel in a git repository (a worktree per story, a merge queue)", () => {
  it("runs 8 stories writing different files at --parallel 4: all merged, one commit each, PRD marked, no worktree left", async () => {
    const repo = repository();
    writePrd(
      repo,
      Array.from({ length: 8 }, (_, i) => writes(`src/file-${i + 1}.txt`, `story ${i + 1}\n`)),
    );
    const result = await repo.flow(["run", "prd.json", "--parallel", "4", "--json"]);
    expect(result.code, result.stderr).toBe(0);
    const events = parseEvents(result.stdout);
    const byStory = finished(events);
    expect(Object.values(byStory).map((s) => s.status)).toEqual(Array(8).fill("passed"));
    // Every story's file is in the main working tree, committed.
    for (let i = 1; i <= 8; i++) expect(readFileSync(join(repo.dir, `src/file-${i}.txt`), "utf8")).toBe(`story ${i}\n`);
    const commits = repo.commits().slice(1);
    const stories = commits.filter((c) => c.parents === 1);
    expect(stories.map((c) => c.subject).sort()).toEqual(
      Array.from({ length: 8 }, (_, i) => `feat: US-00${i + 1} Story ${i + 1}`),
    );
    for (const c of stories) expect(c.files).toHaveLength(1);
    expect(commits.filter((c) => c.parents === 2)).toHaveLength(8);
    expect(repo.git("log", "-1", "--format=%b", "HEAD~1^2")).toContain("Meshflow-Run: ");
    expect(repo.prd().userStories.every((s) => s.passes)).toBe(true);
    expect(repo.worktrees()).toBe(0);
    expect(repo.branches()).toEqual([]);
    // Only the runtime's own files are left: the PRD's marks, its progress log, the run store.
    expect(repo.git("status", "--porcelain").split("\n").filter(Boolean).sort()).toEqual([
      " M prd.json",
      "?? .flow/",
      "?? prd.progress.md",
    ]);
  });

  it("blocks the second of two stories changing the same line with merge_conflict, naming the file and keeping its branch", async () => {
    const repo = repository();
    writePrd(repo, [
      writes("src/shared.txt", "one\nTWO by story 1\nthree\n"),
      writes("src/shared.txt", "one\nTWO by story 2\nthree\n"),
    ]);
    const result = await repo.flow(["run", "prd.json", "--parallel", "2", "--json"]);
    expect(result.code, result.stderr).toBe(1);
    const byStory = finished(parseEvents(result.stdout));
    expect(byStory["US-001"]?.status).toBe("passed");
    expect(byStory["US-002"]?.status).toBe("blocked");
    expect(byStory["US-002"]?.summary).toMatch(/^merge_conflict: .*src\/shared\.txt/);
    expect(readFileSync(join(repo.dir, "src/shared.txt"), "utf8")).toBe("one\nTWO by story 1\nthree\n");
    const runId = (parseEvents(result.stdout).find((e) => e.type === "run.started") as { runId: string }).runId;
    expect(repo.branches()).toEqual([`flow/${runId}/US-002`]);
    expect(repo.worktrees()).toBe(1);
    expect(repo.prd().userStories.map((s) => s.passes)).toEqual([true, false]);
    // flow status names the worktree kept.
    const status = await repo.flow(["status", runId]);
    expect(status.stdout + status.stderr).toContain(join(".flow", "worktrees", runId, "US-002"));
    // flow reset removes the run's worktrees and branches.
    const reset = await repo.flow(["reset", "prd.json"]);
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toContain(`removed the worktree ${join(repo.dir, ".flow", "worktrees", runId, "US-002")}`);
    expect(repo.worktrees()).toBe(0);
    expect(repo.branches()).toEqual([]);
  });

  it("counts the calls of every worktree's servers against the run's one guard: --calls-per-minute pauses the run (exit 130)", async () => {
    // Regression: the filesystem server started per worktree had a guard of its own (6,000 calls a
    // minute, no emergency stop of the run's), so its calls escaped the run's --calls-per-minute.
    const repo = repository();
    // Each story needs six calls, more than the limit, so neither can finish (and be merged) before
    // the guard locks, whichever starts first.
    const sixWrites = (story: number) => ({
      mcpTools: { step1: ["filesystem"] },
      calls: {
        step1: Array.from({ length: 6 }, (_, j) => ({
          tool: "filesystem__write_file",
          args: { path: `src/story-${story}-${j}.txt`, content: `${story}.${j}\n` },
        })),
      },
    });
    writePrd(repo, [sixWrites(1), sixWrites(2)]);
    const args = ["run", "prd.json", "--parallel", "2", "--calls-per-minute", "5", "--run-id", "limited", "--json"];
    const result = await repo.flow(args);
    expect(result.code, result.stderr).toBe(130);
    const events = parseEvents(result.stdout);
    // Five calls of both stories together pass the rate limit (not five per worktree's server, which
    // would let all twelve through), then the guard locks for the whole run: a call that passed the
    // limit but had not reached its server yet (a worktree's server still starting) is refused too.
    const done = events.filter((e) => e.type === "tool.result" && !e.isError);
    expect(done.length).toBeGreaterThan(0);
    expect(done.length).toBeLessThanOrEqual(5);
    const refused = events.flatMap((e) => (e.type === "tool.refused" ? [e.code] : []));
    expect(refused.filter((code) => code === "rate_limit_exceeded")).toHaveLength(1);
    expect(result.stderr).toContain("run limited paused: the guard locked (rate_limit_exceeded");
    expect(result.stderr).toContain("more than 5 calls");
    expect(repo.prd().userStories.map((s) => s.passes)).toEqual([false, false]);
    expect(repo.commits()).toHaveLength(1);

    // Resumed without the limit, the paused stories finish in their worktrees and are merged.
    const resumed = await repo.flow(["resume", "limited", "--calls-per-minute", "0", "--json"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    for (const story of [1, 2])
      for (let j = 0; j < 6; j++)
        expect(readFileSync(join(repo.dir, `src/story-${story}-${j}.txt`), "utf8")).toBe(`${story}.${j}\n`);
    expect(repo.prd().userStories.map((s) => s.passes)).toEqual([true, true]);
    expect(repo.worktrees()).toBe(0);
  });

  it("warns once outside a git repository that stories side by side share one folder", async () => {
    const repo = repository();
    rmSync(join(repo.dir, ".git"), { recursive: true, force: true });
    writeFileSync(
      join(repo.dir, "prd.json"),
      JSON.stringify({ project: "Shared", userStories: testStories([writes("a.txt", "a\n"), writes("b.txt", "b\n")]) }),
    );
    const result = await repo.flow(["run", "prd.json", "--parallel", "2"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.match(/stories side by side share one folder/g)).toHaveLength(1);
    expect(existsSync(join(repo.dir, ".flow", "worktrees"))).toBe(false);
    const refused = await repo.flow(["run", "prd.json", "--parallel", "2", "--isolate", "worktree"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--isolate worktree needs one");
  });

  it("merges both with --resolve-conflicts development-agent: the conflict goes to the specialist in the story's worktree", async () => {
    server = await ScriptedModelServer.start({ script: [], apiKey: KEY });
    const write = (content: string) => ({
      toolCalls: [{ name: "filesystem__write_file", input: { path: "src/shared.txt", content } }],
    });
    const pass = (summary: string) => ({ toolCalls: [{ name: "step_pass", input: { summary } }] });
    // Only story 2 thinks with a model: its step, then the resolution of its conflict.
    server.enqueue(
      write("one\nTWO by story 2\nthree\n"),
      pass("wrote line two"),
      write("one\nTWO by stories 1 and 2\nthree\n"),
      pass("kept both"),
    );
    const repo = repository({
      FLOW_MODEL_BASE_URL: server.baseUrl,
      OPENAI_API_KEY: KEY,
      FLOW_MODEL_API_KEY: undefined,
      FLOW_MODEL: undefined,
    });
    writePrd(repo, [
      writes("src/shared.txt", "one\nTWO by story 1\nthree\n"),
      { mcpTools: { step1: ["filesystem"] }, model: "openai:gpt-test" },
    ]);
    const result = await repo.flow([
      "run",
      "prd.json",
      "--parallel",
      "2",
      "--resolve-conflicts",
      "development-agent",
      "--json",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const byStory = finished(parseEvents(result.stdout));
    expect(byStory["US-002"]?.status).toBe("passed");
    expect(byStory["US-002"]?.summary).toContain("conflicts in src/shared.txt resolved");
    expect(server.requests).toHaveLength(4);
    expect(server.requests[2]?.messages[0]?.text).toContain("conflicts in: src/shared.txt");
    expect(readFileSync(join(repo.dir, "src/shared.txt"), "utf8")).toBe("one\nTWO by stories 1 and 2\nthree\n");
    expect(repo.prd().userStories.map((s) => s.passes)).toEqual([true, true]);
    expect(repo.branches()).toEqual([]);
    expect(repo.worktrees()).toBe(0);
  });

  it("fails a story whose gate passes in its worktree but fails once merged: nothing merged", async () => {
    const repo = repository();
    // Story 2's gate checks that story 1's file is absent: true in its worktree, false after the merge.
    const absent = [process.execPath, "-e", "process.exit(require('node:fs').existsSync('src/file-1.txt') ? 1 : 0)"];
    writePrd(repo, [
      writes("src/file-1.txt", "one\n"),
      writes("src/file-2.txt", "two\n", { verify: [{ name: "no file 1", run: absent }] }),
    ]);
    const result = await repo.flow(["run", "prd.json", "--parallel", "2", "--json"]);
    expect(result.code, result.stderr).toBe(1);
    const byStory = finished(parseEvents(result.stdout));
    expect(byStory["US-001"]?.status).toBe("passed");
    expect(byStory["US-002"]?.status).toBe("failed");
    expect(byStory["US-002"]?.summary).toMatch(/gate failed on main with the story merged/);
    expect(existsSync(join(repo.dir, "src/file-2.txt"))).toBe(false);
    expect(
      repo
        .commits()
        .slice(1)
        .filter((c) => c.files.includes("src/file-2.txt")),
    ).toEqual([]);
    expect(repo.prd().userStories.map((s) => s.passes)).toEqual([true, false]);
  });

  it("runs a PRD with priorities 1 … 8 side by side with --parallel-order deps; says once that the default runs it one at a time", async () => {
    const repo = repository();
    writePrd(
      repo,
      Array.from({ length: 8 }, (_, i) => writes(`src/file-${i + 1}.txt`, `story ${i + 1}\n`, { priority: i + 1 })),
    );
    const plan = await repo.flow(["plan", "prd.json", "--parallel", "4", "--parallel-order", "deps"]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain("wave 1: US-001, US-002, US-003, US-004");
    expect(plan.stdout).toContain("wave 2: US-005, US-006, US-007, US-008");
    const banded = await repo.flow(["plan", "prd.json", "--parallel", "4"]);
    expect(banded.stdout).toContain("wave 8: US-008");
    expect(banded.stdout).toContain("--parallel-order deps");

    const result = await repo.flow(["run", "prd.json", "--parallel", "4", "--parallel-order", "deps", "--json"]);
    expect(result.code, result.stderr).toBe(0);
    const events = parseEvents(result.stdout);
    // Four stories started before the first one finished: side by side, whatever their priorities.
    const firstDone = events.findIndex((e) => e.type === "story.finished");
    expect(events.slice(0, firstDone).filter((e) => e.type === "story.started")).toHaveLength(4);
    expect(repo.prd().userStories.every((s) => s.passes)).toBe(true);
    expect(result.stderr).not.toContain("can run together");

    execFileSync("git", ["checkout", "-q", "--", "."], { cwd: repo.dir });
    const reset = await repo.flow(["reset", "prd.json"]);
    expect(reset.code, reset.stderr).toBe(0);
    const alone = await repo.flow(["run", "prd.json", "--parallel", "4"]);
    expect(alone.code, alone.stderr).toBe(0);
    expect(alone.stderr.match(/no two stories of .* can run together/g)).toHaveLength(1);
    // Said at the start, before the stories run, not among the warnings at the end.
    const [first = ""] = alone.stderr.split("\n");
    expect(first).toMatch(/^flow: --parallel 4: no two stories of .* can run together .*--parallel-order deps/);
    expect(alone.stderr).not.toMatch(/warning: --parallel 4/);
  }, 120_000);

  it("merges each story once when a run killed with -9 during a merge is resumed", async () => {
    const repo = repository();
    const signals = mkdtempSync(join(tmpdir(), "meshflow-worktrees-signals-"));
    const waiting = join(signals, "waiting");
    const release = join(signals, "release");
    // Story 1's gate passes at once in its worktree; on the merged tree (a merge commit) it says it is
    // there and waits for the release file: the run is killed there, mid-merge.
    const gate = [
      "const { execFileSync } = require('node:child_process'); const fs = require('node:fs');",
      "try { execFileSync('git', ['rev-parse', '--verify', '-q', 'HEAD^2'], { stdio: 'ignore' }); } catch { process.exit(0); }",
      `fs.writeFileSync(${JSON.stringify(waiting)}, '');`,
      `while (!fs.existsSync(${JSON.stringify(release)})) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);`,
    ].join("\n");
    writePrd(repo, [
      writes("src/file-1.txt", "one\n", { verify: [{ name: "merged gate", run: [process.execPath, "-e", gate] }] }),
      writes("src/file-2.txt", "two\n"),
    ]);
    const run = repo.spawn(["run", "prd.json", "--parallel", "2", "--run-id", "killed", "--json"]);
    while (!existsSync(waiting)) await new Promise((resolve) => setTimeout(resolve, 50));
    run.child.kill("SIGKILL");
    await run.exit;
    writeFileSync(release, "");
    expect(repo.prd().userStories.map((s) => s.passes)).toEqual([false, false]);

    const resumed = await repo.flow(["resume", "killed", "--json"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const commits = repo.commits().slice(1);
    const merges = commits.filter((c) => c.parents === 2).map((c) => c.subject);
    expect(merges).toEqual(["Merge flow/killed/US-001 into main", "Merge flow/killed/US-002 into main"]);
    expect(
      commits
        .filter((c) => c.parents === 1)
        .map((c) => c.subject)
        .sort(),
    ).toEqual(["feat: US-001 Story 1", "feat: US-002 Story 2"]);
    expect(repo.prd().userStories.map((s) => s.passes)).toEqual([true, true]);
    expect(repo.worktrees()).toBe(0);
    expect(repo.branches()).toEqual([]);
    // Resumed once more, the finished run merges nothing again.
    const again = await repo.flow(["resume", "killed"]);
    expect(again.code).toBe(2);
    expect(repo.commits().slice(1)).toHaveLength(commits.length);
  });
});
