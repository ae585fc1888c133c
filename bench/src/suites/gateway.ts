import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { percentile, type Row, stats } from "../measure.js";

const EVERYTHING = fileURLToPath(
  new URL("../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);
const FLOW_BIN = fileURLToPath(new URL("../../../packages/cli/bin/flow.js", import.meta.url));
/** What `flow serve` may add to a proxied call at p50. */
const GOAL_ADDED_MS = 0.3;
const ROUNDS = 41;
const BATCH = 200;

async function connect(args: string[], cwd: string): Promise<Client> {
  const client = new Client({ name: "meshflow-bench", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args,
      cwd,
      env: { ...(process.env as Record<string, string>), FLOW_LOG_DIR: join(cwd, "logs") },
      stderr: "ignore",
    }),
  );
  await client.listTools();
  return client;
}

function echo(client: Client, name: string): () => Promise<void> {
  return async () => {
    const result = await client.callTool({ name, arguments: { message: "bench" } });
    const content = result.content as { text?: string }[];
    if (content[0]?.text !== "Echo: bench") throw new Error(`unexpected echo result: ${JSON.stringify(result)}`);
  };
}

interface Samples {
  /** Every call's latency, ms. */
  calls: number[];
  /** Mean of each batch, ms. */
  batches: number[];
}

/**
 * Alternating batches of sequential calls (which side goes first alternates too), so load from
 * other processes on the machine hits both sides alike. Every call is timed on its own.
 */
async function measure(direct: () => Promise<void>, gateway: () => Promise<void>) {
  const sides = { direct: { calls: [], batches: [] } as Samples, gateway: { calls: [], batches: [] } as Samples };
  const batch = async (fn: () => Promise<void>, into?: Samples) => {
    const start = performance.now();
    for (let i = 0; i < BATCH; i++) {
      const t = performance.now();
      await fn();
      into?.calls.push(performance.now() - t);
    }
    into?.batches.push((performance.now() - start) / BATCH);
  };
  for (let i = 0; i < 5; i++) {
    await batch(direct);
    await batch(gateway);
  }
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? (["direct", "gateway"] as const) : (["gateway", "direct"] as const);
    for (const side of order) await batch(side === "direct" ? direct : gateway, sides[side]);
  }
  return sides;
}

/**
 * The latency `flow serve` adds to a proxied call: server-everything's `echo` called directly over
 * stdio, and the same tool as `everything__echo` through `flow serve --stdio` (client → gateway →
 * middleware → pool → server), in the same run.
 */
export async function gatewaySuite(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-bench-gateway-"));
  writeFileSync(
    join(dir, ".mcp.json"),
    JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } } }),
  );
  const direct = await connect([EVERYTHING], dir);
  const gateway = await connect(
    [FLOW_BIN, "serve", "--stdio", "--toolsets", "everything", "--calls-per-minute", "100000000"],
    dir,
  );
  try {
    const sides = await measure(echo(direct, "echo"), echo(gateway, "everything__echo"));
    const d = stats(sides.direct.calls);
    const g = stats(sides.gateway.calls);
    const fast = (s: Samples) =>
      percentile(
        [...s.batches].sort((a, b) => a - b),
        0.1,
      );
    const us = (ms: number) => ms * 1000;
    const added = g.p50 - d.p50;
    return [
      { suite: "gateway", case: `direct stdio echo, p50 of ${d.runs} calls`, value: us(d.p50), unit: "µs/call" },
      {
        suite: "gateway",
        case: `flow serve stdio everything__echo, p50 of ${g.runs} calls`,
        value: us(g.p50),
        unit: "µs/call",
        baseline: { label: "direct p50", value: us(d.p50) },
      },
      {
        suite: "gateway",
        case: "added by flow serve at p50",
        value: us(added),
        unit: "µs added",
        baseline: { label: "direct p50", value: us(d.p50) },
        goal: `≤ ${us(GOAL_ADDED_MS)} µs`,
        pass: added <= GOAL_ADDED_MS,
      },
      { suite: "gateway", case: "direct stdio echo, p99", value: us(d.p99), unit: "µs/call" },
      {
        suite: "gateway",
        case: "flow serve everything__echo, p99",
        value: us(g.p99),
        unit: "µs/call",
        baseline: { label: "direct p99", value: us(d.p99) },
      },
      {
        suite: "gateway",
        case: "added, fastest decile of batch means",
        value: us(fast(sides.gateway) - fast(sides.direct)),
        unit: "µs added",
        baseline: { label: "direct p10 batch", value: us(fast(sides.direct)) },
      },
    ];
  } finally {
    await direct.close();
    await gateway.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
