import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RunEvent } from "@meshflow/core";
import { describe, expect, inject, it, onTestFinished } from "vitest";
import { dataOf, serveStdioClient } from "../helpers/flowServe.js";
import { startFlowWorker, until } from "../helpers/flowWorker.js";
import { parseEvents, SLOW_SERVER, serverEntry, testStories } from "../helpers/flowWorkspace.js";
import { runFlow } from "../helpers/runFlow.js";

// The PRD workflow (progress log, story memory, "git": {"commit": true}) of a run started by flow serve
// and of a queued run on a flow worker, as flow run has it; flow enqueue --parallel.

const AGENTS = fileURLToPath(new URL("./agents", import.meta.url));

/** A git repository with a PRD whose stories write files through a filesystem server rooted at it. */
function repository() {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-every-start-"));
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8" });
  git("init", "-q", "-b", "main");
  git("config", "user.name", "Meshflow Test");
  git("config", "user.email", "test@meshflow.invalid");
  git("config", "commit.gpgsign", "false");
  const slowRoot = mkdtempSync(join(tmpdir(), "meshflow-every-start-slow-"));
  const config = {
    mcpServers: {
      filesystem: { command: process.execPath, args: [serverEntry("@modelcontextprotocol/server-filesystem"), dir] },
      slow: { command: process.execPath, args: [SLOW_SERVER, slowRoot] },
    },
  };
  writeFileSync(join(dir, ".mcp.json"), `${JSON.stringify(config, null, 2)}\n`);
  writeFileSync(join(dir, ".gitignore"), ".flow/\nlogs/\n");
  mkdirSync(join(dir, "no-skills"));
  writeFileSync(join(dir, "no-skills", ".keep"), "");
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src", ".keep"), "");
  const stories = testStories([
    {
      mcpTools: { step1: ["filesystem"] },
      calls: {
        step1: [{ tool: "filesystem__write_file", args: { path: join(dir, "src/one.txt"), content: "one\n" } }],
      },
      agentConfig: { "development-agent": { learn: "one.txt holds the first line" } },
    },
    {
      mcpTools: { step1: ["filesystem"] },
      calls: {
        step1: [{ tool: "filesystem__write_file", args: { path: join(dir, "src/two.txt"), content: "two\n" } }],
      },
    },
  ]);
  const prd = { project: "Every start", branchName: "flow/every", git: { commit: true }, userStories: stories };
  writeFileSync(join(dir, "prd.json"), `${JSON.stringify(prd, null, 2)}\n`);
  git("add", "-A");
  git("commit", "-q", "-m", "start");
  const env = { FLOW_AGENTS: AGENTS, FLOW_SKILLS: join(dir, "no-skills"), FLOW_HOME: undefined };
  return {
    dir,
    slowRoot,
    env,
    flow: (args: readonly string[]) => runFlow(args, { cwd: dir, env }),
    /** Subjects and files of the commits after the set-up one, oldest first. */
    commits: () =>
      git("rev-list", "--reverse", "HEAD")
        .trim()
        .split("\n")
        .slice(1)
        .map((id) => ({
          subject: git("log", "-1", "--format=%s", id).trim(),
          trailer: git("log", "-1", "--format=%b", id).trim(),
          files: git("show", "--name-only", "--format=", id).trim().split("\n").filter(Boolean),
        })),
  };
}

type Repo = ReturnType<typeof repository>;

/** What the workflow left: the progress log's headings and the story memory's entries. */
function workflowTrace(repo: Repo) {
  const progress = readFileSync(join(repo.dir, "prd.progress.md"), "utf8");
  const memoryDir = join(repo.dir, ".flow", "memory");
  const memory = readdirSync(memoryDir)
    .filter((f) => f.startsWith("prd-") && f.endsWith(".ndjson"))
    .flatMap((f) => readFileSync(join(memoryDir, f), "utf8").split("\n").filter(Boolean))
    .map(
      (l) =>
        JSON.parse(l) as { storyId: string; status: string; files: string[]; learnings: string[]; commit?: string },
    );
  return { headings: progress.split("\n").filter((l) => l.startsWith("## ")), memory };
}

function expectWorkflow(repo: Repo, runId: string) {
  const { headings, memory } = workflowTrace(repo);
  expect(headings).toEqual(["## ✓ US-001 Story 1 (passed)", "## ✓ US-002 Story 2 (passed)"]);
  expect(memory).toEqual([
    expect.objectContaining({
      storyId: "US-001",
      status: "passed",
      files: ["src/one.txt"],
      learnings: ["one.txt holds the first line"],
    }),
    expect.objectContaining({ storyId: "US-002", status: "passed", files: ["src/two.txt"], learnings: [] }),
  ]);
  expect(repo.commits()).toEqual([
    { subject: "feat: US-001 Story 1", trailer: `Meshflow-Run: ${runId}`, files: ["src/one.txt"] },
    { subject: "feat: US-002 Story 2", trailer: `Meshflow-Run: ${runId}`, files: ["src/two.txt"] },
  ]);
}

describe("the PRD workflow of runs flow run did not start", () => {
  it("flow serve's flow_run_prd writes the progress log and story memory and commits each passed story", async () => {
    const repo = repository();
    const s = await serveStdioClient([], {
      cwd: repo.dir,
      clientName: "cline",
      env: { ...repo.env, FLOW_HOME: join(repo.dir, ".flow") } as Record<string, string>,
    });
    onTestFinished(() => s.close());
    const refused = await s.call("flow_run_prd", { prd: "prd.json" });
    const token = (dataOf(refused).error as { confirmationToken: string }).confirmationToken;
    const started = dataOf(await s.call("flow_run_prd", { prd: "prd.json", confirmation_token: token }));
    const runId = started.runId as string;
    const status = await until("the run to end", async () => {
      const now = dataOf(await s.call("flow_run_status", { runId }));
      return now.status !== "running" && now.status !== "preflight" ? now : undefined;
    });
    expect(status.status, JSON.stringify(status)).toBe("passed");
    expectWorkflow(repo, runId);
    // Its record keeps the workflow, so a flow resume (or the console's Resume) commits as it did.
    const record = JSON.parse(readFileSync(join(repo.dir, ".flow/runs", runId, "run.json"), "utf8"));
    expect(record.options.workflow).toEqual({ commit: true });
  }, 90_000);

  it("a queued run on a flow worker writes them and commits each passed story in the worker's checkout", async () => {
    const repo = repository();
    const url = inject("redisUrl");
    const prefix = `every-${process.pid}-${Date.now()}:`;
    const worker = await startFlowWorker(repo, url, ["--redis-prefix", prefix], repo.env);
    onTestFinished(() => worker.stop("SIGTERM").then(() => undefined));
    const queued = await repo.flow(["enqueue", "prd.json", "--wait", "--redis", url, "--redis-prefix", prefix]);
    expect(queued.code, queued.stderr + queued.stdout).toBe(0);
    const runId = /^queued (\S+)/.exec(queued.stdout)?.[1] ?? "";
    expectWorkflow(repo, runId);
    // Left uncommitted: the runtime's own files (the marks --wait wrote, the progress log), as after flow run.
    expect(execFileSync("git", ["status", "--porcelain"], { cwd: repo.dir, encoding: "utf8" })).toBe(
      " M prd.json\n?? prd.progress.md\n",
    );
  }, 90_000);

  it("flow enqueue --parallel 2 runs a queued run's stories side by side on its worker, consultations included", async () => {
    const repo = repository();
    const url = inject("redisUrl");
    const prefix = `parallel-${process.pid}-${Date.now()}:`;
    // Each story waits for its own release file, then consults the refactor-agent (mesh fixtures):
    // one story at a time, the second would never start before the first is released.
    const mesh = fileURLToPath(new URL("../fixtures/agents-mesh", import.meta.url));
    const stories = testStories(
      ["a", "b"].map((name) => ({
        mcpTools: { step1: ["slow"] },
        calls: { step1: [{ tool: "slow__wait_for", args: { file: `release-${name}` } }] },
        consult: { "development-agent": ["refactor-agent"] },
        agentConfig: { "development-agent": { ask: ["refactor-agent"] }, "refactor-agent": { calls: [] } },
      })),
    );
    writeFileSync(
      join(repo.dir, "prd.json"),
      JSON.stringify({ project: "P", branchName: "flow/p", userStories: stories }),
    );
    const env = { ...repo.env, FLOW_AGENTS: mesh };
    const worker = await startFlowWorker(repo, url, ["--redis-prefix", prefix], env);
    onTestFinished(() => worker.stop("SIGTERM").then(() => undefined));
    const enqueued = await runFlow(
      ["enqueue", "prd.json", "--parallel", "2", "--redis", url, "--redis-prefix", prefix, "--json"],
      { cwd: repo.dir, env },
    );
    expect(enqueued.code, enqueued.stderr).toBe(0);
    const runId = (JSON.parse(enqueued.stdout) as { runs: Array<{ runId: string }> }).runs[0]?.runId ?? "";
    const eventsFile = join(repo.dir, ".flow/runs", runId, "events.ndjson");
    const events = (): RunEvent[] => (existsSync(eventsFile) ? parseEvents(readFileSync(eventsFile, "utf8")) : []);
    await until(
      "both stories' calls in flight",
      () => events().filter((e) => e.type === "tool.called" && e.tool === "slow__wait_for").length === 2,
    );
    for (const name of ["a", "b"]) writeFileSync(join(repo.slowRoot, `release-${name}`), "");
    await until("the run to end", () => events().some((e) => e.type === "run.finished"));
    const all = events();
    expect(
      all.find((e) => e.type === "run.finished"),
      JSON.stringify(all.filter((e) => e.type === "step.finished")),
    ).toMatchObject({ status: "passed", passed: 2 });
    const consults = all.filter((e) => e.type === "consult.done");
    expect(consults.map((e) => (e as { storyId?: string }).storyId).sort()).toEqual(["US-001", "US-002"]);
    // Refused where a commit per story is asked for: stories side by side would mix their files.
    writeFileSync(
      join(repo.dir, "commit.json"),
      JSON.stringify({ project: "C", branchName: "flow/c", git: { commit: true }, userStories: stories }),
    );
    const committing = await runFlow(["enqueue", "commit.json", "--parallel", "2", "--redis", url], {
      cwd: repo.dir,
      env,
    });
    expect(committing.code).toBe(2);
    expect(committing.stderr).toContain("which stories side by side would mix");
  }, 120_000);
});
