import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ReceivedRequest, ScriptedReply } from "@meshflow/model/testing";

const require = createRequire(import.meta.url);

/** The filesystem MCP server's entry, run with `process.execPath` over stdio. */
export const FILESYSTEM = require.resolve("@modelcontextprotocol/server-filesystem/dist/index.js");

/** Model turns of the step: TURNS - 1 read calls, then the finish. */
export const TURNS = 20;

/** The model every side names: priced in the shipped table, on the Anthropic wire. */
export const MODEL = "claude-sonnet-4-5";

/** The story every side is given. */
export const STORY =
  "US-001 Add a status field to todos: each todo gets a status (open, doing, done), stored with it and shown in the list. Read the code first.";

/** A project of small source files for the filesystem server: what the step reads. */
export function project(): string {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-bench-economy-"));
  mkdirSync(join(dir, "src"));
  for (const name of ["todo", "store", "list", "api", "status"]) {
    const body = Array.from(
      { length: 12 },
      (_, i) => `export function ${name}${i}(input: string): string {\n  return input.trim() + "${name}-${i}";\n}\n`,
    ).join("\n");
    writeFileSync(join(dir, "src", `${name}.ts`), body);
  }
  writeFileSync(join(dir, "README.md"), "# Todo app\n\nA small todo app: a store, a list view and an API.\n");
  return dir;
}

/** The read call of each tool turn, by the filesystem server's own tool names. */
function readOf(turn: number, dir: string): { tool: string; input: Record<string, unknown> } {
  const files = ["todo", "store", "list", "api", "status"];
  const file = join(dir, "src", `${files[turn % files.length]}.ts`);
  switch (turn % 6) {
    case 0:
      return { tool: "read_text_file", input: { path: file } };
    case 1:
      return { tool: "list_directory", input: { path: join(dir, "src") } };
    case 2:
      return { tool: "get_file_info", input: { path: file } };
    case 3:
      return { tool: "search_files", input: { path: dir, pattern: "*.ts" } };
    case 4:
      return { tool: "read_text_file", input: { path: file, head: 8 } };
    default:
      return { tool: "list_directory_with_sizes", input: { path: join(dir, "src") } };
  }
}

/**
 * The 20-turn step, the same for every side: each turn's call is found among the tools the side offers
 * by the filesystem server's name (meshflow offers `filesystem__read_text_file`, LangGraph
 * `read_text_file`, Mastra `filesystem_read_text_file`); the last turn finishes with `finish`.
 */
export function economyScript(dir: string, finish: ScriptedReply) {
  return (request: ReceivedRequest): ScriptedReply => {
    const done = request.messages.filter((m) => m.role === "assistant").length;
    if (done >= TURNS - 1) return finish;
    const { tool, input } = readOf(done, dir);
    const offered = request.tools.find((t) => t.name === tool || t.name.endsWith(`_${tool}`));
    if (!offered)
      throw new Error(`the step offers no ${tool} (offered: ${request.tools.map((t) => t.name).join(", ")})`);
    return { text: `Reading with ${tool}.`, toolCalls: [{ name: offered.name, input }] };
  };
}

/** Claude Sonnet 4.5's prices per million tokens: what the billed input is weighed with. */
const PRICE = { input: 3, cacheRead: 0.3, cacheWrite: 3.75 };

/** A side's input tokens as the scripted server billed them, and their price with the cache. */
export interface Billed {
  requests: number;
  input: number;
  cacheRead: number;
  cacheWrite: number;
  /** US dollars of the input tokens: fresh at the input price, cache reads and writes at theirs. */
  usd: number;
}

/** What the server billed for a side's requests (the scripted server's own counts). */
export function billed(requests: readonly ReceivedRequest[]): Billed {
  const sum: Billed = { requests: 0, input: 0, cacheRead: 0, cacheWrite: 0, usd: 0 };
  for (const r of requests) {
    if (!r.usage) continue;
    const read = r.usage.cacheReadTokens ?? 0;
    const write = r.usage.cacheWriteTokens ?? 0;
    const fresh = r.usage.inputTokens - read - write;
    sum.requests += 1;
    sum.input += r.usage.inputTokens;
    sum.cacheRead += read;
    sum.cacheWrite += write;
    sum.usd += (fresh * PRICE.input + read * PRICE.cacheRead + write * PRICE.cacheWrite) / 1_000_000;
  }
  return sum;
}

/** Milliseconds the server spent on a side's requests. */
export function serverTime(requests: readonly ReceivedRequest[]): number {
  return requests.reduce((sum, r) => sum + (r.serverMs ?? 0), 0);
}
