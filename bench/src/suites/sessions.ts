import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Row } from "../measure.js";

const FLOW_BIN = fileURLToPath(new URL("../../../packages/cli/bin/flow.js", import.meta.url));
const MEMORY_SERVER = fileURLToPath(
  new URL("../../../node_modules/@modelcontextprotocol/server-memory/dist/index.js", import.meta.url),
);
const TOKEN = "bench-serve-token-5a4b3c2d1e0f";
const ATTEMPTS = Number(process.env.MESHFLOW_BENCH_SESSION_ATTEMPTS ?? 10_000);
const CAP = 100;
const PARALLEL = 8;
const WARMUP = 500;
/** Growth of `flow serve`'s resident memory allowed over ATTEMPTS one-shot sessions: 10,000 kept would be ~1.5 GB. */
const GOAL_GROWTH_MB = 150;

/** Resident memory of a process in MB, from /proc/<pid>/status. */
function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
  return kb / 1024;
}

/** One client that says hello and never comes back: an initialize request, its answer read in full. */
async function initializeOnce(url: string, n: number): Promise<number> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: `one-shot-${n}`, version: "1" } },
    }),
  });
  await res.text();
  return res.status;
}

/**
 * `flow serve --http --max-sessions 100` under many one-shot clients: its resident memory after a warm-up
 * and after ATTEMPTS more session attempts (8 in flight). The suite's small version
 * (tests/gateway/sessionMemory.e2e.test.ts) checks the cap itself; the memory figure depends on the
 * machine's load and lives here.
 */
export async function sessionsSuite(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-bench-sessions-"));
  const memory = { command: process.execPath, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: join(dir, "m.jsonl") } };
  writeFileSync(join(dir, ".mcp.json"), JSON.stringify({ mcpServers: { memory } }));
  const child = spawn(process.execPath, [FLOW_BIN, "serve", "--http", "127.0.0.1:0", "--max-sessions", String(CAP)], {
    cwd: dir,
    env: { ...process.env, FLOW_LOG_DIR: join(dir, "logs"), FLOW_SERVE_TOKEN: TOKEN },
    stdio: ["ignore", "ignore", "pipe"],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => {
        stderr += d.toString("utf8");
        const found = /listening on (http:\/\/\S+\/mcp)/.exec(stderr)?.[1];
        if (found) resolve(found);
      });
      child.once("exit", (code) => reject(new Error(`flow serve exited ${code}:\n${stderr}`)));
    });
    const pid = child.pid;
    if (!pid) throw new Error("flow serve has no pid");
    let next = 0;
    let refused = 0;
    const attempts = (until: number) =>
      Promise.all(
        Array.from({ length: PARALLEL }, async () => {
          while (next < until) if ((await initializeOnce(url, next++)) !== 200) refused++;
        }),
      );
    // The first few hundred sessions grow the heap to its working size; a leak shows as growth after that.
    await attempts(WARMUP);
    const before = rssMb(pid);
    const started = performance.now();
    await attempts(WARMUP + ATTEMPTS);
    const seconds = (performance.now() - started) / 1000;
    const growth = rssMb(pid) - before;
    if (refused) throw new Error(`${refused} of ${WARMUP + ATTEMPTS} session attempts were not answered 200`);
    return [
      {
        suite: "sessions",
        case: `RSS growth over ${ATTEMPTS} one-shot sessions (cap ${CAP})`,
        value: growth,
        unit: "MB",
        goal: `≤ ${GOAL_GROWTH_MB} MB`,
        pass: growth <= GOAL_GROWTH_MB,
      },
      { suite: "sessions", case: "session attempts per second", value: ATTEMPTS / seconds, unit: "/s" },
    ];
  } finally {
    child.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}
