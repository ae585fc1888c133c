import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { median, type Row } from "../measure.js";
import { generateMcpPrd } from "./runMcp/generateMcpPrd.js";
import { PEERS, peerRun, type Sample } from "./runMcp/peerRun.js";

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const FLOW = join(ROOT, "packages/cli/bin/flow.js");
const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
const RSS_REPORT = fileURLToPath(new URL("./runMcp/rssReport.js", import.meta.url));
const RAW_ONE = fileURLToPath(new URL("./runMcp/rawOneCall.js", import.meta.url));

/** Stories of the compared run, and of the memory check. */
const STORIES = Number(process.env.MESHFLOW_BENCH_STORIES ?? 2_000);
const BIG = Number(process.env.MESHFLOW_BENCH_BIG_STORIES ?? 20_000);
const ROUNDS = 3;
const ONE_CALL_RUNS = 7;

/** A folder with the PRD and an `.mcp.json` naming server-everything over stdio. */
function workspace(stories: number, steps?: readonly number[], notes = true): { dir: string; prd: string } {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-bench-run-mcp-"));
  writeFileSync(
    join(dir, ".mcp.json"),
    JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } } }),
  );
  const prd = join(dir, "prd.json");
  writeFileSync(prd, generateMcpPrd(stories, steps, { notes }));
  return { dir, prd };
}

/** Steps of each story of the PRD of one-step stories (the memory check's second shape). */
const ONE_STEP: readonly number[] = [1];

/** The whole `flow run` process with the shipped specialists, the run store and the write-back on. */
function flowRun(stories: number, notes = true, steps?: readonly number[]): Sample {
  const { dir, prd } = workspace(stories, steps, notes);
  const rssFile = join(dir, "rss.txt");
  try {
    const start = performance.now();
    const result = spawnSync(
      process.execPath,
      [
        "--import",
        RSS_REPORT,
        FLOW,
        "run",
        prd,
        "--mcp-config",
        join(dir, ".mcp.json"),
        // No --agents / --skills: the specialists and skills @meshflow/cli ships, as in a project without its own.
        "--store",
        join(dir, ".flow"),
        "--calls-per-minute",
        "0",
        "--json",
      ],
      {
        cwd: dir,
        env: { ...process.env, MESHFLOW_BENCH_RSS_FILE: rssFile, FLOW_MODEL: "" },
        stdio: ["ignore", "ignore", "pipe"],
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    const ms = performance.now() - start;
    if (result.status !== 0) throw new Error(`flow run exited ${result.status ?? result.signal}: ${result.stderr}`);
    const passed = (JSON.parse(readFileSync(prd, "utf8")) as { userStories: Array<{ passes: boolean }> }).userStories;
    if (passed.some((s) => !s.passes)) throw new Error("flow run left a story without passes: true");
    return { ms, maxRssKb: Number(readFileSync(rssFile, "utf8").trim().split("\n").at(-1)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function timeOne(command: string[]): number {
  const start = performance.now();
  const result = spawnSync(process.execPath, command, { stdio: "ignore" });
  if (result.status !== 0) throw new Error(`${command.join(" ")} exited ${result.status ?? result.signal}`);
  return performance.now() - start;
}

/**
 * `npm run bench -- run-mcp`: what a user runs — the whole `flow run` process with the shipped
 * specialists loaded from disk, one real stdio MCP call (`echo` on server-everything) per step, the run
 * store and the PRD write-back on — against two LangGraph.js processes making the same calls through the
 * same MCP SDK client (the graph invoked once per story, each story a thread of its own; and one
 * supervisor invocation walking every story) and the raw SDK client making them in a loop, alternating
 * which goes first, ROUNDS times, medians compared (the goal against the faster peer); peak RSS at 2,000
 * and 20,000 stories; and a 1-story run against the raw SDK client's spawn + one call.
 */
export async function runMcpSuite(): Promise<Row[]> {
  const calls = STORIES * 3;
  const sides = ["flow", ...(Object.keys(PEERS) as Array<keyof typeof PEERS>)] as const;
  const samples: Record<(typeof sides)[number], Sample[]> = { flow: [], perStory: [], supervisor: [], raw: [] };
  // The same PRD with no `notes` field in its stories: the write-back adds one to each.
  const bare: Sample[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    // Each round starts with a different side, so none always runs first (or last) on a busy machine.
    for (let k = 0; k < sides.length; k++) {
      const side = sides[(i + k) % sides.length] ?? "flow";
      if (side === "flow") samples.flow.push(flowRun(STORIES));
      else {
        const { dir, prd } = workspace(STORIES);
        try {
          samples[side].push(peerRun(side, prd, EVERYTHING, calls));
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
    }
    bare.push(flowRun(STORIES, false));
    const last = (side: keyof typeof samples) => ((samples[side].at(-1)?.ms ?? 0) / 1000).toFixed(2);
    process.stderr.write(
      `run-mcp round ${i + 1}: flow run ${last("flow")} s, LangGraph.js per story ${last("perStory")} s, ` +
        `supervisor ${last("supervisor")} s, raw loop ${last("raw")} s (started with ${sides[i % sides.length]})\n`,
    );
  }
  const big = BIG > 0 ? flowRun(BIG) : undefined;
  // The other shape of PRD: one step (one call) a story, at both sizes.
  const oneStep = BIG > 0 ? { small: flowRun(STORIES, true, ONE_STEP), big: flowRun(BIG, true, ONE_STEP) } : undefined;

  const one = workspace(1, [7]);
  const oneFlow: number[] = [];
  const oneRaw: number[] = [];
  try {
    const onePrd = readFileSync(one.prd, "utf8");
    for (let i = 0; i < ONE_CALL_RUNS + 1; i++) {
      writeFileSync(one.prd, onePrd);
      const f = timeOne([
        FLOW,
        "run",
        one.prd,
        "--mcp-config",
        join(one.dir, ".mcp.json"),
        // No --agents / --skills: the specialists and skills @meshflow/cli ships, as in a project without its own.
        "--store",
        join(one.dir, ".flow"),
      ]);
      const r = timeOne([RAW_ONE, EVERYTHING]);
      // The first pair warms the file cache.
      if (i > 0) {
        oneFlow.push(f);
        oneRaw.push(r);
      }
    }
  } finally {
    rmSync(one.dir, { recursive: true, force: true });
  }

  const ms = (side: keyof typeof samples) => median(samples[side].map((s) => s.ms));
  const rss = (side: keyof typeof samples) => median(samples[side].map((s) => s.maxRssKb / 1024));
  const mMs = ms("flow");
  const bMs = median(bare.map((s) => s.ms));
  const mRss = rss("flow");
  // The goals are judged against the faster (and the leaner) LangGraph.js peer.
  const fastest = ms("supervisor") <= ms("perStory") ? "supervisor" : "perStory";
  const leanest = rss("supervisor") <= rss("perStory") ? "supervisor" : "perStory";
  const label = { supervisor: "LangGraph.js supervisor", perStory: "LangGraph.js per story" };
  const n = calls.toLocaleString("en-US");
  const rows: Row[] = [
    {
      suite: "run-mcp",
      case: `LangGraph.js, one invocation per story, ${n} calls`,
      value: ms("perStory") / 1000,
      unit: "s",
    },
    {
      suite: "run-mcp",
      case: `LangGraph.js supervisor, one invocation, ${n} calls`,
      value: ms("supervisor") / 1000,
      unit: "s",
    },
    { suite: "run-mcp", case: `raw SDK client, the same ${n} calls in a loop`, value: ms("raw") / 1000, unit: "s" },
    {
      suite: "run-mcp",
      case: `flow run, ${n} real calls`,
      value: mMs / 1000,
      unit: "s",
      baseline: { label: label[fastest], value: ms(fastest) / 1000 },
      goal: "≤ 0.25×",
      pass: mMs <= 0.25 * ms(fastest),
    },
    {
      suite: "run-mcp",
      case: `flow run, ${n} real calls, against the raw loop`,
      value: mMs / 1000,
      unit: "s",
      baseline: { label: "raw SDK loop", value: ms("raw") / 1000 },
      goal: "≤ 2.5×",
      pass: mMs <= 2.5 * ms("raw"),
    },
    {
      suite: "run-mcp",
      case: `flow run, ${n} real calls, stories without notes`,
      value: bMs / 1000,
      unit: "s",
      baseline: { label: "with notes", value: mMs / 1000 },
      goal: "≤ 1.15×",
      pass: bMs <= 1.15 * mMs,
    },
    {
      suite: "run-mcp",
      case: `LangGraph.js per story peak RSS, ${STORIES} stories`,
      value: rss("perStory"),
      unit: "MB",
    },
    {
      suite: "run-mcp",
      case: `LangGraph.js supervisor peak RSS, ${STORIES} stories`,
      value: rss("supervisor"),
      unit: "MB",
    },
    { suite: "run-mcp", case: `raw SDK loop peak RSS, ${STORIES} stories`, value: rss("raw"), unit: "MB" },
    {
      suite: "run-mcp",
      case: `flow run peak RSS, ${STORIES} stories`,
      value: mRss,
      unit: "MB",
      baseline: { label: label[leanest], value: rss(leanest) },
      goal: "≤ 0.5×",
      pass: mRss <= 0.5 * rss(leanest),
    },
  ];
  if (big) {
    const bigRss = big.maxRssKb / 1024;
    rows.push({
      suite: "run-mcp",
      case: `flow run peak RSS, ${BIG} stories`,
      value: bigRss,
      unit: "MB",
      baseline: { label: `${STORIES} stories`, value: mRss },
      goal: "≤ 1.15×",
      pass: bigRss <= 1.15 * mRss,
    });
    rows.push({
      suite: "run-mcp",
      case: `flow run, ${(BIG * 3).toLocaleString("en-US")} real calls`,
      value: big.ms / 1000,
      unit: "s",
    });
  }
  if (oneStep) {
    const small = oneStep.small.maxRssKb / 1024;
    const large = oneStep.big.maxRssKb / 1024;
    rows.push({ suite: "run-mcp", case: `flow run peak RSS, ${STORIES} one-step stories`, value: small, unit: "MB" });
    rows.push({
      suite: "run-mcp",
      case: `flow run peak RSS, ${BIG} one-step stories`,
      value: large,
      unit: "MB",
      baseline: { label: `${STORIES} one-step stories`, value: small },
      goal: "≤ 1.15×",
      pass: large <= 1.15 * small,
    });
  }
  const fOne = median(oneFlow);
  const rOne = median(oneRaw);
  rows.push({ suite: "run-mcp", case: "raw SDK client: spawn + one call", value: rOne, unit: "ms" });
  rows.push({
    suite: "run-mcp",
    case: "flow run, 1 story, 1 call",
    value: fOne,
    unit: "ms",
    baseline: { label: "raw SDK spawn + call", value: rOne },
    goal: "≤ 1.5×",
    pass: fOne <= 1.5 * rOne,
  });
  return rows;
}
