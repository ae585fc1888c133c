import { fileURLToPath } from "node:url";
import type { StdioServerConfig } from "@meshflow/core";
import {
  type CallContext,
  ClientPool,
  ConfirmationGate,
  createToolChain,
  Guard,
  inMemoryServers,
  MetricsCollector,
  type ToolHandler,
} from "@meshflow/mcp";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { percentile, type Row, stats } from "../measure.js";

const EVERYTHING = fileURLToPath(
  new URL("../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);

/** The same echo tool server-everything has, as an in-process SDK server. */
function echoServer(): McpServer {
  const server = new McpServer({ name: "bench-echo", version: "1.0.0" });
  server.registerTool(
    "echo",
    {
      description: "Echoes back the input string",
      inputSchema: { message: z.string() },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ message }) => ({ content: [{ type: "text", text: `Echo: ${message}` }] }),
  );
  return server;
}

/** The full chain with every middleware doing its real work (the rate limit set high enough not to lock). */
function fullChain(pool: ClientPool): ToolHandler {
  return createToolChain({
    pool,
    metrics: new MetricsCollector(),
    guard: new Guard({ callsPerMinute: 10_000_000 }),
    confirmation: new ConfirmationGate(),
  });
}

/** Per-call times of a baseline and a candidate (ms), from many short alternating batches. */
interface Comparison {
  /** Median batch mean. */
  raw: number;
  chain: number;
  /** Fastest decile (p10) of batch means: the least disturbed figure on a shared machine. */
  rawFast: number;
  chainFast: number;
}

/**
 * Alternating batches of `batch` sequential calls of `raw` and `chain` (which goes first alternates
 * too), so load from other processes hits both alike.
 */
async function compare(
  raw: () => Promise<unknown>,
  chain: () => Promise<unknown>,
  rounds: number,
  batch: number,
): Promise<Comparison> {
  const timeBatch = async (fn: () => Promise<unknown>) => {
    const start = performance.now();
    for (let i = 0; i < batch; i++) await fn();
    return (performance.now() - start) / batch;
  };
  for (let i = 0; i < 5; i++) {
    await timeBatch(raw);
    await timeBatch(chain);
  }
  const raws: number[] = [];
  const chains: number[] = [];
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      raws.push(await timeBatch(raw));
      chains.push(await timeBatch(chain));
    } else {
      chains.push(await timeBatch(chain));
      raws.push(await timeBatch(raw));
    }
  }
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  return {
    raw: stats(raws).p50,
    chain: stats(chains).p50,
    rawFast: percentile(sorted(raws), 0.1),
    chainFast: percentile(sorted(chains), 0.1),
  };
}

/** The rows of one comparison: raw and chain at the median and at the fastest decile, the latter against the goal. */
function rows(label: string, result: Comparison, goal: number): Row[] {
  const us = (ms: number) => ms * 1000;
  return [
    { suite: "mcp", case: `${label}: raw SDK, p50 batch`, value: us(result.raw), unit: "µs/call" },
    {
      suite: "mcp",
      case: `${label}: full chain, p50 batch`,
      value: us(result.chain),
      unit: "µs/call",
      baseline: { label: "raw SDK p50", value: us(result.raw) },
    },
    { suite: "mcp", case: `${label}: raw SDK, p10 batch`, value: us(result.rawFast), unit: "µs/call" },
    {
      suite: "mcp",
      case: `${label}: full chain, p10 batch`,
      value: us(result.chainFast),
      unit: "µs/call",
      baseline: { label: "raw SDK p10", value: us(result.rawFast) },
      goal: `≤ ${goal.toFixed(2)}×`,
      pass: result.chainFast <= result.rawFast * goal,
    },
  ];
}

/** What the middleware adds per call over `pool.callTool` on the same server (fastest decile). */
function middlewareRow(label: string, result: Comparison): Row {
  const us = (ms: number) => ms * 1000;
  return {
    suite: "mcp",
    case: `${label}: chain over pool.callTool, same server, p10`,
    value: us(result.chainFast - result.rawFast),
    unit: "µs added",
    baseline: { label: "pool.callTool p10", value: us(result.rawFast) },
  };
}

function assertEcho(result: unknown): void {
  const content = (result as { content?: { text?: unknown }[] }).content;
  if (content?.[0]?.text !== "Echo: bench") throw new Error(`unexpected echo result: ${JSON.stringify(result)}`);
}

async function inMemory(): Promise<Row[]> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await echoServer().connect(serverSide);
  const client = new Client({ name: "bench-raw", version: "1.0.0" });
  await client.connect(clientSide);
  // Both sides start from the same state: a client that discovered the server's tools.
  await client.listTools();

  const { servers, transportFactory } = inMemoryServers({ bench: echoServer });
  const pool = new ClientPool(servers, { transportFactory });
  const call = fullChain(pool);
  const ctx: CallContext = { repertoire: new Set(["bench__echo"]), storyId: "US-1", step: 1 };
  assertEcho(await client.callTool({ name: "echo", arguments: { message: "bench" } }));
  assertEcho(await call("bench__echo", { message: "bench" }, ctx));

  const chained = await compare(
    () => client.callTool({ name: "echo", arguments: { message: "bench" } }),
    () => call("bench__echo", { message: "bench" }, ctx),
    201,
    100,
  );
  const samePool = await compare(
    () => pool.callTool("bench", "echo", { message: "bench" }),
    () => call("bench__echo", { message: "bench" }, ctx),
    201,
    100,
  );
  await client.close();
  await pool.close();
  return [...rows("in-memory echo", chained, 1.25), middlewareRow("in-memory echo", samePool)];
}

async function stdio(): Promise<Row[]> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [EVERYTHING, "stdio"],
    stderr: "ignore",
  });
  const client = new Client({ name: "bench-raw", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();

  const config: StdioServerConfig = {
    name: "everything",
    transport: "stdio",
    command: process.execPath,
    args: [EVERYTHING, "stdio"],
    argsAsWritten: [EVERYTHING, "stdio"],
    env: {},
    cwd: process.cwd(),
  };
  const pool = new ClientPool(new Map([["everything", config]]));
  const call = fullChain(pool);
  const ctx: CallContext = { repertoire: new Set(["everything__echo"]), storyId: "US-1", step: 1 };
  assertEcho(await client.callTool({ name: "echo", arguments: { message: "bench" } }));
  assertEcho(await call("everything__echo", { message: "bench" }, ctx));

  const result = await compare(
    () => client.callTool({ name: "echo", arguments: { message: "bench" } }),
    () => call("everything__echo", { message: "bench" }, ctx),
    41,
    500,
  );
  // The same server process for both sides: what the middleware adds, without the scheduling of
  // two server processes on a shared machine in the figure.
  const samePool = await compare(
    () => pool.callTool("everything", "echo", { message: "bench" }),
    () => call("everything__echo", { message: "bench" }, ctx),
    41,
    500,
  );
  await client.close();
  await pool.close();
  return [...rows("stdio everything echo", result, 1.05), middlewareRow("stdio everything echo", samePool)];
}

/**
 * The inline tool path against the raw SDK in the same run: `client.callTool` on an in-memory echo
 * server vs the same call through the full chain (metrics → guard → policy → confirmation →
 * validation → pool), and the same over stdio to server-everything's `echo`.
 */
export async function mcpSuite(): Promise<Row[]> {
  return [...(await inMemory()), ...(await stdio())];
}
