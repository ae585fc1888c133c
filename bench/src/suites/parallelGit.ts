import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import type { GateResult } from "@meshflow/runtime/host";
import { Git, StoryWorktrees } from "@meshflow/runtime/host";
import { alternating, median, type Row } from "../measure.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const FLOW = join(ROOT, "packages/cli/bin/flow.js");
/** Our stdio server whose `sleep` tool takes `ms` milliseconds (shared with the `scale` suite). */
const SLEEP_SERVER = fileURLToPath(new URL("./scale/sleepServer.js", import.meta.url));
const FILESYSTEM_SERVER = createRequire(join(ROOT, "package.json")).resolve(
  "@modelcontextprotocol/server-filesystem/dist/index.js",
);

const STORIES = 16;
const TOOL_MS = 200;
const WIDE = 4;
const ROUNDS = 3;

/** A git repository with a PRD of independent stories, each writing one file and waiting on a 200 ms tool. */
function repository(): { dir: string; prd: string } {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-bench-parallel-git-"));
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, stdio: "ignore" });
  git("init", "-q", "-b", "main");
  git("config", "user.name", "Meshflow Bench");
  git("config", "user.email", "bench@meshflow.invalid");
  git("config", "commit.gpgsign", "false");
  writeFileSync(
    join(dir, ".mcp.json"),
    JSON.stringify({
      mcpServers: {
        // Rooted at each story's worktree with --parallel (started once per worktree), else at the repository.
        files: { command: process.execPath, args: [FILESYSTEM_SERVER, `\${FLOW_WORKSPACE:-${dir}}`] },
        sleep: { command: process.execPath, args: [SLEEP_SERVER] },
      },
    }),
  );
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src", ".keep"), "");
  const userStories = Array.from({ length: STORIES }, (_, i) => ({
    id: `US-${String(i + 1).padStart(3, "0")}`,
    title: `Story ${i + 1}`,
    mavenSteps: [1],
    mcpTools: { step1: ["files", "sleep"] },
    calls: {
      step1: [
        { tool: "files__write_file", args: { path: `src/file-${i + 1}.txt`, content: `story ${i + 1}\n` } },
        { tool: "sleep__sleep", args: { ms: TOOL_MS } },
      ],
    },
    priority: 1,
    passes: false,
    notes: "",
  }));
  const prd = join(dir, "prd.json");
  writeFileSync(prd, `${JSON.stringify({ project: "Bench parallel git", userStories }, null, 2)}\n`);
  git("add", "-A");
  git("commit", "-q", "-m", "start");
  return { dir, prd };
}

/** The whole `flow run --parallel n --commit` process in a fresh repository: wall time in ms. */
function flowRun(parallel: number): number {
  const { dir, prd } = repository();
  try {
    const start = performance.now();
    const result = spawnSync(
      process.execPath,
      [FLOW, "run", prd, "--parallel", String(parallel), "--commit", "--calls-per-minute", "0", "--json"],
      {
        cwd: dir,
        env: { ...process.env, FLOW_MODEL: "" },
        stdio: ["ignore", "pipe", "pipe"],
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    const ms = performance.now() - start;
    if (result.status !== 0)
      throw new Error(`flow run --parallel ${parallel} exited ${result.status}: ${result.stderr}`);
    const stories = (JSON.parse(readFileSync(prd, "utf8")) as { userStories: Array<{ passes: boolean }> }).userStories;
    if (stories.some((s) => !s.passes)) throw new Error(`flow run --parallel ${parallel} left a story unpassed`);
    const commits = Number(execFileSync("git", ["rev-list", "--count", "HEAD"], { cwd: dir, encoding: "utf8" }));
    if (commits < STORIES + 1) throw new Error(`flow run --parallel ${parallel} made ${commits - 1} commits`);
    return ms;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const NO_GATE: GateResult = { passed: true, results: [], summary: "no verify commands" };

/**
 * What isolating a story costs in git alone, in process: its worktree made, one file written, then
 * committed, merged (`--no-ff` in the worktree, the run's branch fast-forwarded) and the worktree and
 * branch removed. Milliseconds per story, over the 16 stories.
 */
async function worktreeCostPerStory(): Promise<number> {
  const { dir, prd } = repository();
  try {
    const git = await Git.find(dir);
    if (!git) throw new Error(`${dir} is not a repository`);
    const worktrees = new StoryWorktrees({ git, storeRoot: join(dir, ".flow") });
    const plan = { prdFile: prd, prdDir: dir, stories: [] } as unknown as Parameters<StoryWorktrees["open"]>[2];
    const start = performance.now();
    for (let i = 0; i < STORIES; i++) {
      const planned = {
        id: `US-${i + 1}`,
        index: i,
        story: { title: `Story ${i + 1}` },
      } as unknown as Parameters<StoryWorktrees["open"]>[1];
      const workspace = await worktrees.open("bench", planned, plan);
      writeFileSync(join(workspace.dir, "src", `file-${i + 1}.txt`), `story ${i + 1}\n`);
      const landed = await worktrees.land({
        runId: "bench",
        plan,
        planned,
        specialists: ["development-agent"],
        gate: async () => NO_GATE,
      });
      if (landed.status !== "passed") throw new Error(`US-${i + 1} did not land: ${landed.summary}`);
    }
    const ms = (performance.now() - start) / STORIES;
    await worktrees.close("bench", true);
    return ms;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `flow run --parallel 4 --commit` (a worktree per story, merged back one at a time) against
 * `--parallel 1 --commit` (one working tree) on 16 stories that each write one file and wait on a
 * 200 ms tool, whole processes, rounds alternating which goes first; medians. Goals: ≤ 0.35× the
 * sequential time; worktree set-up plus merge ≤ 150 ms per story.
 */
export async function parallelGitSuite(): Promise<Row[]> {
  const [one, wide] = await alternating(
    ROUNDS,
    () => flowRun(1),
    () => flowRun(WIDE),
  );
  const costs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) costs.push(await worktreeCostPerStory());
  const seq = median(one);
  const par = median(wide);
  const cost = median(costs);
  return [
    {
      suite: "parallel-git",
      case: `flow run --parallel 1 --commit, ${STORIES} stories × (1 file + ${TOOL_MS} ms)`,
      value: seq / 1000,
      unit: "s",
    },
    {
      suite: "parallel-git",
      case: `flow run --parallel ${WIDE} --commit (worktrees)`,
      value: par / 1000,
      unit: "s",
      baseline: { label: "--parallel 1", value: seq / 1000 },
      goal: "≤ 0.35×",
      pass: par / seq <= 0.35,
    },
    {
      suite: "parallel-git",
      case: "worktree set-up + commit + merge + removal, per story",
      value: cost,
      unit: "ms",
      goal: "≤ 150 ms",
      pass: cost <= 150,
    },
  ];
}
