import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { alternating, median, type Row } from "../measure.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const FLOW = join(ROOT, "packages/cli/bin/flow.js");
/** Our stdio server whose `sleep` tool takes `ms` milliseconds (shared with the `scale` suite). */
const SLEEP_SERVER = fileURLToPath(new URL("./scale/sleepServer.js", import.meta.url));

const STORIES = Number(process.env.MESHFLOW_BENCH_PARALLEL_STORIES ?? 400);
const TOOL_MS = 20;
const WIDE = 8;
const ROUNDS = 3;

/** A PRD of independent stories (one priority), each one step with one 20 ms `sleep` call. */
function prdText(): string {
  const userStories = Array.from({ length: STORIES }, (_, i) => ({
    id: `US-${String(i + 1).padStart(5, "0")}`,
    title: `Story ${i + 1}`,
    mavenSteps: [1],
    mcpTools: { step1: ["sleep"] },
    calls: { step1: [{ tool: "sleep__sleep", args: { ms: TOOL_MS } }] },
    priority: 1,
    passes: false,
    notes: "",
  }));
  return `${JSON.stringify({ project: "Bench parallel", userStories }, null, 2)}\n`;
}

/** One `flow run`: the whole process's wall time, and the run's own (`run.started` → `run.finished`). */
interface Timing {
  ms: number;
  runMs: number;
}

/** The time between a run's `run.started` and `run.finished` events in its `--json` output. */
function runSpan(stdout: string): number {
  const time = (type: string) => {
    const line = stdout.split("\n").find((l) => l.includes(`"type":"${type}"`));
    return line ? Date.parse((JSON.parse(line) as { time: string }).time) : Number.NaN;
  };
  return time("run.finished") - time("run.started");
}

/** The whole `flow run --parallel n` process (shipped specialists, run store and PRD write-back on). */
function flowRun(parallel: number): Timing {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-bench-parallel-"));
  try {
    writeFileSync(
      join(dir, ".mcp.json"),
      JSON.stringify({ mcpServers: { sleep: { command: process.execPath, args: [SLEEP_SERVER] } } }),
    );
    const prd = join(dir, "prd.json");
    writeFileSync(prd, prdText());
    const start = performance.now();
    const result = spawnSync(
      process.execPath,
      [
        FLOW,
        "run",
        prd,
        "--parallel",
        String(parallel),
        // No --agents / --skills: the specialists and skills @meshflow/cli ships, as in a project without its own.
        "--calls-per-minute",
        "0",
        "--json",
      ],
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
    return { ms, runMs: runSpan(result.stdout) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `flow run --parallel 8` against `--parallel 1` on the same PRD (400 independent stories, one 20 ms
 * tool call each), whole processes, rounds alternating which goes first; medians. Goal ≥ 6× faster.
 */
export async function parallelSuite(): Promise<Row[]> {
  const [one, wide] = await alternating(
    ROUNDS,
    () => flowRun(1),
    () => flowRun(WIDE),
  );
  const seq = median(one.map((t) => t.ms));
  const par = median(wide.map((t) => t.ms));
  const speedup = seq / par;
  const runSpeedup = median(one.map((t) => t.runMs)) / median(wide.map((t) => t.runMs));
  return [
    {
      suite: "parallel",
      case: `flow run --parallel 1, ${STORIES} stories × 1 ${TOOL_MS} ms call`,
      value: seq / 1000,
      unit: "s",
    },
    {
      suite: "parallel",
      case: `flow run --parallel ${WIDE}, same PRD`,
      value: par / 1000,
      unit: "s",
      baseline: { label: "--parallel 1", value: seq / 1000 },
    },
    {
      suite: "parallel",
      case: `speed-up of --parallel ${WIDE}`,
      value: speedup,
      unit: "×",
      goal: "≥ 6×",
      pass: speedup >= 6,
    },
    {
      // The same runs without the process's fixed start and end (modules, server spawn, discovery),
      // which --parallel cannot shorten: what the stories themselves gained.
      suite: "parallel",
      case: `speed-up of --parallel ${WIDE}, run.started → run.finished`,
      value: runSpeedup,
      unit: "×",
    },
  ];
}
