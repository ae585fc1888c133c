import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { type ReceivedRequest, ScriptedModelServer, type ScriptedReply } from "@meshflow/model/testing";
import { alternating, percentile, type Row } from "../measure.js";

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const FLOW = join(ROOT, "packages/cli/bin/flow.js");
const CLAUDE = join(ROOT, "tests/coding-agents/node_modules/.bin/claude");
const FILESYSTEM = require.resolve("@modelcontextprotocol/server-filesystem/dist/index.js");

/** Model turns of the step: one tool call a turn, the last one the finish. */
const TURNS = 20;
/** Alternating rounds of each side. */
const ROUNDS = Number(process.env.MESHFLOW_BENCH_HARNESS_ROUNDS ?? 5);
const KEY = "sk-bench-harness";

/** When each turn's request reached the model server, per run: the gaps between them are the tool calls. */
type Arrivals = number[];

/**
 * A scripted model for one side: turn k (k < TURNS) writes file k through `write`, then the finish;
 * the arrival time of every turn request is kept.
 */
function script(write: string, finish: string | undefined, arrivals: Arrivals, files: string) {
  return (request: ReceivedRequest): ScriptedReply => {
    if (!request.tools.length) return { text: "title" };
    arrivals.push(performance.now());
    const done = request.messages.filter((m) => m.role === "assistant").length;
    const usage = { inputTokens: 1000, outputTokens: 20 };
    if (done < TURNS - 1)
      return {
        toolCalls: [{ name: write, input: { path: join(files, `f${done}.txt`), content: `file ${done}\n` } }],
        usage,
      };
    if (done === TURNS - 1 && finish)
      return { toolCalls: [{ name: finish, input: { summary: "wrote the files" } }], usage };
    return { text: "Done.", usage };
  };
}

/** Runs a command to its end; the wall time in ms. */
function run(argv: string[], options: { cwd: string; env: NodeJS.ProcessEnv; stdin?: string }): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const [command = "", ...args] = argv;
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["pipe", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.stdin.end(options.stdin ?? "");
    child.on("close", (code) => {
      const ms = performance.now() - start;
      if (code === 0) resolve(ms);
      else reject(new Error(`${argv.slice(0, 3).join(" ")} exited ${code}: ${stderr.slice(-2000)}`));
    });
  });
}

interface Side {
  ms: number;
  /** Gaps between turn requests: one tool call each, as the model server sees it. */
  gaps: number[];
}

function gapsOf(arrivals: Arrivals): number[] {
  return arrivals.slice(1, TURNS).map((t, i) => t - (arrivals[i] ?? t));
}

function environment(home: string, server: ScriptedModelServer): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    ANTHROPIC_API_KEY: KEY,
    FLOW_MODEL_BASE_URL: server.baseUrl,
  };
}

/** `flow run --harness claude-code`: the step's write_file calls go through meshflow to the filesystem server. */
async function throughMeshflow(): Promise<Side> {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-bench-harness-"));
  const files = join(dir, "files");
  mkdirSync(files);
  const arrivals: Arrivals = [];
  const server = await ScriptedModelServer.start({
    apiKey: KEY,
    handler: script("mcp__meshflow__filesystem__write_file", "mcp__meshflow__step_pass", arrivals, files),
  });
  try {
    writeFileSync(
      join(dir, ".mcp.json"),
      JSON.stringify({ mcpServers: { filesystem: { command: process.execPath, args: [FILESYSTEM, files] } } }),
    );
    writeFileSync(
      join(dir, "prd.json"),
      JSON.stringify({
        project: "Bench",
        userStories: [
          {
            id: "US-001",
            title: "Write twenty files",
            description: "As a user I want files.",
            acceptanceCriteria: ["the files exist"],
            mavenSteps: [7],
            mcpTools: { step7: ["filesystem"] },
            priority: 1,
            passes: false,
            notes: "",
          },
        ],
      }),
    );
    const ms = await run(
      [
        process.execPath,
        FLOW,
        "run",
        "prd.json",
        "--harness",
        "claude-code",
        "--model",
        "anthropic:claude-bench",
        "--max-turns",
        String(TURNS + 5),
        "--calls-per-minute",
        "0",
      ],
      {
        cwd: dir,
        env: {
          ...environment(join(dir, "home"), server),
          PATH: `${join(ROOT, "tests/coding-agents/node_modules/.bin")}:${process.env.PATH}`,
        },
      },
    );
    const prd = JSON.parse(readFileSync(join(dir, "prd.json"), "utf8")) as { userStories: Array<{ passes: boolean }> };
    if (!prd.userStories[0]?.passes) throw new Error("the harness run did not pass its story");
    return { ms, gaps: gapsOf(arrivals) };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The same Claude Code given the filesystem server directly (its own MCP client over stdio). */
async function direct(): Promise<Side> {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-bench-harness-direct-"));
  const files = join(dir, "files");
  mkdirSync(files);
  const arrivals: Arrivals = [];
  const server = await ScriptedModelServer.start({
    apiKey: KEY,
    handler: script("mcp__filesystem__write_file", undefined, arrivals, files),
  });
  try {
    const config = join(dir, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { filesystem: { command: process.execPath, args: [FILESYSTEM, files] } } }),
    );
    const ms = await run(
      [
        CLAUDE,
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        "--strict-mcp-config",
        "--mcp-config",
        config,
        "--setting-sources",
        "user",
        "--allowedTools",
        "mcp__filesystem",
        "--tools",
        "",
        "--model",
        "claude-bench",
      ],
      {
        cwd: dir,
        env: {
          ...environment(join(dir, "home"), server),
          ANTHROPIC_BASE_URL: server.url,
          ENABLE_TOOL_SEARCH: "false",
          DISABLE_AUTOUPDATER: "1",
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        },
        stdin: "Write the twenty files of the story, one tool call a turn.",
      },
    );
    if (!existsSync(join(files, `f${TURNS - 2}.txt`))) throw new Error("the direct run did not write its files");
    return { ms, gaps: gapsOf(arrivals) };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (values: readonly number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

/**
 * `npm run bench -- harness`: a 20-turn scripted step, one `write_file` call a turn, worked by Claude
 * Code through meshflow (`flow run --harness claude-code`: the whole process, the step server, the
 * journal, the real filesystem server) against the same Claude Code given the filesystem server
 * directly, in alternating rounds. Goals: wall ≤ 1.10× the direct run; meshflow's added latency per
 * tool call (the model server's gap between turns, p50 over every call, through meshflow minus direct)
 * ≤ 1 ms.
 */
export async function harnessSuite(): Promise<Row[]> {
  if (!existsSync(CLAUDE)) throw new Error(`${CLAUDE} is missing: run scripts/ensure-coding-agents first`);
  await throughMeshflow(); // warm the file cache and Claude Code's first start
  await direct();
  const [mesh, raw] = await alternating(ROUNDS, throughMeshflow, direct);
  const meshMs = median(mesh.map((s) => s.ms));
  const rawMs = median(raw.map((s) => s.ms));
  const meshGap = median(mesh.flatMap((s) => s.gaps));
  const rawGap = median(raw.flatMap((s) => s.gaps));
  const added = meshGap - rawGap;
  return [
    {
      suite: "harness",
      case: `claude code direct, ${TURNS}-turn step (median of ${ROUNDS})`,
      value: rawMs,
      unit: "ms",
    },
    {
      suite: "harness",
      case: `flow run --harness claude-code, ${TURNS}-turn step`,
      value: meshMs,
      unit: "ms",
      baseline: { label: "direct", value: rawMs },
      goal: "≤ 1.10×",
      pass: meshMs / rawMs <= 1.1,
    },
    { suite: "harness", case: "tool call, direct (model server's gap, p50)", value: rawGap, unit: "ms" },
    { suite: "harness", case: "tool call through meshflow (p50)", value: meshGap, unit: "ms" },
    {
      suite: "harness",
      case: "meshflow's added latency per tool call (p50)",
      value: added,
      unit: "ms",
      goal: "≤ 1 ms",
      pass: added <= 1,
    },
  ];
}
