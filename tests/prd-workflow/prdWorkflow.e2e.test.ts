import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RunEvent } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { parseEvents, SLOW_SERVER, serverEntry, testStories } from "../helpers/flowWorkspace.js";
import { FLOW_BIN, flowEnv, runFlow } from "../helpers/runFlow.js";

const AGENTS = fileURLToPath(new URL("./agents", import.meta.url));

/** A git repository in a temporary folder, with a filesystem MCP server rooted at it. */
function repository() {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-prd-workflow-"));
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8" });
  git("init", "-q", "-b", "main");
  git("config", "user.name", "Meshflow Test");
  git("config", "user.email", "test@meshflow.invalid");
  git("config", "commit.gpgsign", "false");
  // The slow server (waits for release files) works in a folder of its own, outside the repository.
  const slowRoot = mkdtempSync(join(tmpdir(), "meshflow-prd-workflow-slow-"));
  const config = {
    mcpServers: {
      filesystem: { command: process.execPath, args: [serverEntry("@modelcontextprotocol/server-filesystem"), dir] },
      slow: { command: process.execPath, args: [SLOW_SERVER, slowRoot] },
    },
  };
  writeFileSync(join(dir, ".mcp.json"), `${JSON.stringify(config, null, 2)}\n`);
  mkdirSync(join(dir, "no-skills"));
  writeFileSync(join(dir, "no-skills", ".keep"), "");
  mkdirSync(join(dir, "prds"));
  // Folders the stories write into (server-filesystem creates no parent folders).
  for (const folder of ["auth", "api", "ui"]) mkdirSync(join(dir, "src", folder), { recursive: true });
  git("add", "-A");
  git("commit", "-q", "-m", "start");
  const env = { FLOW_AGENTS: AGENTS, FLOW_SKILLS: join(dir, "no-skills"), FLOW_HOME: undefined };
  return {
    dir,
    slowRoot,
    git,
    /** Starts `flow <args>` with `--json` output parsed as it comes; kill it with `child.kill`. */
    spawn(args: readonly string[]) {
      const child = spawn(process.execPath, [FLOW_BIN, ...args], { cwd: dir, env: flowEnv(env), stdio: "pipe" });
      let out = "";
      const seen = (match: (e: RunEvent) => boolean) =>
        new Promise<void>((resolve, reject) => {
          const check = () => {
            if (parseEvents(out).some(match)) resolve();
          };
          child.stdout.on("data", (d: Buffer) => {
            out += d.toString("utf8");
            check();
          });
          child.on("close", () => reject(new Error(`flow exited first: ${out}`)));
        });
      const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
      return { child, seen, exit };
    },
    flow: (args: readonly string[]) => runFlow(args, { cwd: dir, env }),
    /** The subjects, bodies and files of the commits made by runs (after the set-up ones), oldest first. */
    commits(): Array<{ subject: string; body: string; files: string[] }> {
      const ids = git("rev-list", "--reverse", "HEAD").trim().split("\n").slice(2);
      return ids.map((id) => ({
        subject: git("log", "-1", "--format=%s", id).trim(),
        body: git("log", "-1", "--format=%b", id).trim(),
        files: git("show", "--name-only", "--format=", id).trim().split("\n").filter(Boolean).sort(),
      }));
    },
  };
}

type Repo = ReturnType<typeof repository>;

/** A story writing `file` (relative to the repository) through the filesystem server on step 1. */
function writes(repo: Repo, file: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    mcpTools: { step1: ["filesystem"] },
    calls: { step1: [{ tool: "filesystem__write_file", args: { path: join(repo.dir, file), content: `${file}\n` } }] },
    ...extra,
  };
}

function writePrd(
  repo: Repo,
  name: string,
  stories: Array<Record<string, unknown>>,
  extra: Record<string, unknown> = {},
) {
  const prefix = name.replace(/^prd-|\.json$/g, "").toUpperCase();
  const userStories = testStories(stories).map((s, i) => ({
    ...s,
    id: `${prefix}-${i + 1}`,
    title: `${prefix} story ${i + 1}`,
  }));
  const text = `${JSON.stringify({ project: "Workflow", branchName: `flow/${prefix.toLowerCase()}`, ...extra, userStories }, null, 2)}\n`;
  writeFileSync(join(repo.dir, "prds", name), text);
  return text;
}

const started = (events: RunEvent[]) =>
  events.flatMap((e) => (e.type === "run.started" ? [e.prd.slice(e.prd.lastIndexOf("/") + 1)] : []));

function logLines(repo: Repo, runId: string): Array<Record<string, unknown>> {
  return readFileSync(join(repo.dir, ".flow/runs", runId, "log.ndjson"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("the PRD workflow (flow run <folder>, progress, memory, commits, reset, re-run)", () => {
  it("runs a folder of PRDs dependencies first, commits each passed story, remembers, resets and re-runs", async () => {
    const repo = repository();
    const outside = mkdtempSync(join(tmpdir(), "meshflow-prd-workflow-gate-"));
    const okFile = join(outside, "ui-ok");
    const authText = writePrd(repo, "prd-auth.json", [
      writes(repo, "src/auth/login.ts", {
        agentConfig: { "development-agent": { learn: "sessions live in src/auth" } },
      }),
      writes(repo, "src/auth/logout.ts"),
    ]);
    writePrd(
      repo,
      "prd-api.json",
      [writes(repo, "src/api/routes.ts", { mavenSteps: [1, 5], mcpTools: { step1: ["filesystem"], step5: [] } })],
      { dependsOn: ["prd-auth.json"] },
    );
    writePrd(repo, "prd-ui.json", [
      writes(repo, "src/ui/page.ts", { mavenSteps: [1, 5], agentConfig: { "quality-agent": { requires: okFile } } }),
      writes(repo, "src/ui/menu.ts"),
    ]);
    repo.git("add", "-A");
    repo.git("commit", "-q", "-m", "PRDs");

    // --max-stories 2: prd-api.json comes first by name but waits for prd-auth.json, whose two stories fill the limit.
    const first = await repo.flow(["run", "prds", "--commit", "--max-stories", "2", "--json"]);
    expect(first.code, first.stderr + first.stdout).toBe(0);
    const firstEvents = parseEvents(first.stdout);
    expect(started(firstEvents)).toEqual(["prd-auth.json"]);
    expect(repo.commits()).toEqual([
      {
        subject: "feat: AUTH-1 AUTH story 1",
        body: `Meshflow-Run: ${firstEvents[0]?.runId}`,
        files: ["src/auth/login.ts"],
      },
      {
        subject: "feat: AUTH-2 AUTH story 2",
        body: `Meshflow-Run: ${firstEvents[0]?.runId}`,
        files: ["src/auth/logout.ts"],
      },
    ]);
    const authProgress = readFileSync(join(repo.dir, "prds/prd-auth.progress.md"), "utf8");
    expect(authProgress).toContain("## ✓ AUTH-1 AUTH story 1 (passed)");
    expect(authProgress).toContain("- files changed: `src/auth/login.ts`");
    expect(authProgress).toContain("  - sessions live in src/auth");

    // The rest: prd-api.json (its auth dependency passed), then prd-ui.json, whose first story fails its quality step.
    const second = await repo.flow(["run", "prds", "--commit", "--json"]);
    expect(second.code, second.stderr).toBe(1);
    const secondEvents = parseEvents(second.stdout);
    expect(started(secondEvents)).toEqual(["prd-api.json", "prd-ui.json"]);
    // A later step saw its story's earlier step and the dependency's learning.
    const apiRun = secondEvents.find((e) => e.type === "run.started")?.runId ?? "";
    const memory = logLines(repo, apiRun).find((l) => l.message === "memory");
    expect(memory).toMatchObject({ steps: ["1:passed"], learnings: ["sessions live in src/auth"] });
    const uiRun = secondEvents.findLast((e) => e.type === "run.started")?.runId ?? "";
    expect(repo.commits().map((c) => c.subject)).toEqual([
      "feat: AUTH-1 AUTH story 1",
      "feat: AUTH-2 AUTH story 2",
      "feat: API-1 API story 1",
      "feat: UI-2 UI story 2",
    ]);
    expect(repo.commits()[3]?.files).toEqual(["src/ui/menu.ts"]);
    // The failed story was not committed: its file is still uncommitted.
    expect(repo.git("status", "--porcelain", "--", "src")).toContain("src/ui/page.ts");
    const uiProgress = readFileSync(join(repo.dir, "prds/prd-ui.progress.md"), "utf8");
    expect(uiProgress).toContain("## ✗ UI-1 UI story 1 (failed)");

    // One line per PRD, in run order.
    const status = await repo.flow(["status", "prds", "--json"]);
    expect(status.code, status.stderr).toBe(0);
    const prds = (JSON.parse(status.stdout) as { prds: Array<Record<string, unknown>> }).prds;
    expect(prds.map((p) => [p.prd, p.passed, p.pending, p.failed, p.blocked])).toEqual([
      ["prd-auth.json", 2, 0, 0, 0],
      ["prd-api.json", 1, 0, 0, 0],
      ["prd-ui.json", 1, 0, 1, 0],
    ]);
    expect(prds[2]?.progress).toHaveLength(2);
    const statusText = await repo.flow(["status", "prds"]);
    expect(statusText.stdout).toContain("prd-ui.json  ✓ 1 passed  ○ 0 pending  ✗ 1 failed  ⊘ 0 blocked");

    // A dirty tree (the failed story's file) is refused before anything runs.
    const dirty = await repo.flow(["run", "prds/prd-ui.json", "--commit"]);
    expect(dirty.code).toBe(2);
    expect(dirty.stderr).toContain("uncommitted changes (src/ui/page.ts)");
    expect(dirty.stderr).toContain("--allow-dirty");

    // Re-run only the failed step: step 1 is kept (not called again), step 5 runs and now passes.
    writeFileSync(okFile, "ok\n");
    const rerun = await repo.flow(["run", "--rerun-failed", uiRun, "--commit", "--json"]);
    expect(rerun.code, rerun.stderr).toBe(0);
    const rerunEvents = parseEvents(rerun.stdout);
    expect(rerunEvents.find((e) => e.type === "run.started")).toMatchObject({ stories: ["UI-1"] });
    expect(rerunEvents.filter((e) => e.type === "tool.called")).toEqual([]);
    expect(
      rerunEvents.filter((e) => e.type === "step.finished").map((e) => (e as { summary: string }).summary),
    ).toEqual([expect.stringContaining(`kept from run ${uiRun}`), "checked after 1 earlier step(s)"]);
    expect(repo.commits().at(-1)).toMatchObject({ subject: "feat: UI-1 UI story 1", files: ["src/ui/page.ts"] });

    // Reset with archive: passes false, notes cleared, every other byte kept; the progress log moved away.
    const reset = await repo.flow(["reset", "prds/prd-auth.json", "--archive", "--json"]);
    expect(reset.code, reset.stderr).toBe(0);
    expect(JSON.parse(reset.stdout)).toMatchObject({ reset: ["AUTH-1", "AUTH-2"], changed: true });
    expect(readFileSync(join(repo.dir, "prds/prd-auth.json"), "utf8")).toBe(authText);
    expect(existsSync(join(repo.dir, "prds/prd-auth.progress.md"))).toBe(false);
    expect(readdirSync(join(repo.dir, "prds/archive"))).toEqual([expect.stringMatching(/-prd-auth\.progress\.md$/)]);
  }, 120_000);

  it("--branch checks out the PRD's branchName; --allow-dirty commits next to a user's uncommitted file; --max-stories on one PRD", async () => {
    const repo = repository();
    writePrd(repo, "prd-ui.json", [writes(repo, "src/ui/a.ts"), writes(repo, "src/ui/b.ts")], {
      git: { commit: true },
    });
    repo.git("add", "-A");
    repo.git("commit", "-q", "-m", "PRD");
    writeFileSync(join(repo.dir, "notes.txt"), "a user's work in progress\n");

    const refused = await repo.flow(["run", "prds/prd-ui.json", "--branch"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("uncommitted changes (notes.txt)");
    expect(repo.git("branch", "--show-current").trim()).toBe("main");

    // "git": {"commit": true} in the PRD commits without --commit.
    const run = await repo.flow(["run", "prds/prd-ui.json", "--branch", "--allow-dirty", "--max-stories", "1"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("created and checked out branch flow/ui");
    // The limit names every story it left, not only the PRDs it did not start.
    expect(run.stderr).toContain("--max-stories 1 reached; left for a later run:\n  prd-ui.json: UI-2\n");
    expect(repo.git("branch", "--show-current").trim()).toBe("flow/ui");
    expect(repo.commits()).toEqual([
      { subject: "feat: UI-1 UI story 1", body: expect.stringMatching(/^Meshflow-Run: /), files: ["src/ui/a.ts"] },
    ]);
    expect(repo.git("status", "--porcelain", "--", "notes.txt")).toContain("notes.txt");
    const prd = JSON.parse(readFileSync(join(repo.dir, "prds/prd-ui.json"), "utf8"));
    expect(prd.userStories.map((s: { passes: boolean }) => s.passes)).toEqual([true, false]);
  });

  it("documents the new commands and flags in --help", async () => {
    const repo = repository();
    const run = await repo.flow(["run", "--help"]);
    for (const flag of ["--max-stories <n>", "--commit", "--allow-dirty", "--branch", "--rerun-failed <runId>"])
      expect(run.stdout).toContain(flag);
    const reset = await repo.flow(["reset", "--help"]);
    expect(reset.code).toBe(0);
    expect(reset.stdout).toContain("--archive");
    expect(reset.stdout).toContain("Exit codes:");
    const missing = await repo.flow(["run"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("flow run needs a PRD file or a folder of PRDs");
  });

  it("a run killed mid-story and resumed in another process still commits exactly what the story changed", async () => {
    const repo = repository();
    writePrd(repo, "prd-ui.json", [
      {
        mcpTools: { step1: ["filesystem", "slow"] },
        calls: {
          step1: [
            { tool: "filesystem__write_file", args: { path: join(repo.dir, "src/ui/a.ts"), content: "a\n" } },
            { tool: "slow__wait_for", args: { file: "release" } },
          ],
        },
      },
    ]);
    repo.git("add", "-A");
    repo.git("commit", "-q", "-m", "PRD");
    const run = repo.spawn(["run", "prds/prd-ui.json", "--commit", "--json", "--run-id", "killed"]);
    await run.seen((e) => e.type === "tool.called" && e.tool === "slow__wait_for");
    run.child.kill("SIGKILL");
    await run.exit;
    expect(repo.commits()).toEqual([]);
    writeFileSync(join(repo.slowRoot, "release"), "");

    const resumed = await repo.flow(["resume", "killed", "--json"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(repo.commits(), resumed.stderr).toEqual([
      { subject: "feat: UI-1 UI story 1", body: "Meshflow-Run: killed", files: ["src/ui/a.ts"] },
    ]);
  });

  it("says once, at the first story, that thousands of files git neither tracks nor ignores slow every story, naming where they are", async () => {
    const repo = repository();
    writePrd(repo, "prd-auth.json", [writes(repo, "src/auth/a.ts"), writes(repo, "src/auth/b.ts")]);
    repo.git("add", "-A");
    repo.git("commit", "-q", "-m", "PRDs");
    // A project's dependencies not in .gitignore: every story reads them before and after it.
    for (let i = 0; i < 1_000; i++) {
      mkdirSync(join(repo.dir, "node_modules", `pkg-${i % 10}`), { recursive: true });
      writeFileSync(join(repo.dir, "node_modules", `pkg-${i % 10}`, `f${i}.js`), `${i}\n`);
    }
    const crowded = await repo.flow(["run", "prds/prd-auth.json"]);
    expect(crowded.code, crowded.stderr).toBe(0);
    const said = crowded.stderr.split("\n").filter((line) => line.includes("files git neither tracks nor ignores"));
    expect(said).toEqual([
      "flow: warning: 1,000 files git neither tracks nor ignores (1,000 under node_modules/): each story reads them all, before and after it, to tell which files it changed, which slows every story down; add what is not the project's own work (dependencies, build output) to .gitignore",
    ]);
    // The stories' own files are still told apart from them.
    const progress = readFileSync(join(repo.dir, "prds/prd-auth.progress.md"), "utf8");
    expect(progress).toContain("- files changed: `src/auth/a.ts`\n");
    expect(progress).toContain("- files changed: `src/auth/b.ts`\n");

    // Ignored, they are not read and nothing is said.
    writeFileSync(join(repo.dir, ".gitignore"), "node_modules/\n");
    const quiet = await repo.flow(["reset", "prds/prd-auth.json"]);
    expect(quiet.code, quiet.stderr).toBe(0);
    const again = await repo.flow(["run", "prds/prd-auth.json"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain("neither tracks nor ignores");
  });

  it("a commit a hook refuses is a warning, the story stays passed and recorded; a PRD named alone whose dependency has not passed is exit 1", async () => {
    const repo = repository();
    writePrd(repo, "prd-auth.json", [writes(repo, "src/auth/a.ts")]);
    writePrd(repo, "prd-api.json", [writes(repo, "src/api/b.ts")], { dependsOn: ["prd-auth.json"] });
    repo.git("add", "-A");
    repo.git("commit", "-q", "-m", "PRDs");

    const waiting = await repo.flow(["run", "prds/prd-api.json"]);
    expect(waiting.code).toBe(1);
    expect(waiting.stderr).toContain("prd-api.json not run: it depends on prd-auth.json");

    const hook = join(repo.dir, ".git/hooks/pre-commit");
    writeFileSync(hook, "#!/bin/sh\necho 'refused by the hook' >&2\nexit 1\n", { mode: 0o755 });
    const refused = await repo.flow(["run", "prds/prd-auth.json", "--commit"]);
    expect(refused.code, refused.stderr).toBe(0);
    expect(refused.stderr).toContain("AUTH-1: not committed: git commit failed");
    expect(refused.stderr).toContain("refused by the hook");
    expect(repo.commits()).toEqual([]);
    expect(readFileSync(join(repo.dir, "prds/prd-auth.progress.md"), "utf8")).toContain(
      "## ✓ AUTH-1 AUTH story 1 (passed)",
    );
    expect(JSON.parse(readFileSync(join(repo.dir, "prds/prd-auth.json"), "utf8")).userStories[0].passes).toBe(true);
  });
});
