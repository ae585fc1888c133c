import { spawnSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

/** One measured process: wall time from spawn to exit, and its peak RSS. */
export interface Sample {
  ms: number;
  maxRssKb: number;
}

/** The peers of `flow run`, each a script in this folder taking `<prd.json> <server-everything entry>`. */
export const PEERS = {
  /** LangGraph.js, the graph invoked once per story, each story a thread of its own in MemorySaver. */
  perStory: "langgraphMcp.js",
  /** LangGraph.js, one invocation walking every story and step, MemorySaver on. */
  supervisor: "langgraphSupervisor.js",
  /** The raw MCP SDK client making the same calls in a loop. */
  raw: "rawLoop.js",
} as const;

/** Runs one peer process over `prd`; fails loudly unless it made `calls` calls. */
export function peerRun(peer: keyof typeof PEERS, prd: string, serverEntry: string, calls: number): Sample {
  const script = fileURLToPath(new URL(`./${PEERS[peer]}`, import.meta.url));
  const start = performance.now();
  const result = spawnSync(process.execPath, [script, prd, serverEntry], { encoding: "utf8" });
  const ms = performance.now() - start;
  if (result.status !== 0) throw new Error(`${PEERS[peer]} exited ${result.status ?? result.signal}: ${result.stderr}`);
  const out = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "{}") as { calls: number; maxRssKb: number };
  if (out.calls !== calls) throw new Error(`${PEERS[peer]} made ${out.calls} calls, expected ${calls}`);
  return { ms, maxRssKb: out.maxRssKb };
}
