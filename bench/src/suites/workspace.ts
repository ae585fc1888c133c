import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createWorkspaceServer } from "@meshflow/workspace-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { type Row, timeAsync } from "../measure.js";

const FILES = 500;
const FLOW = fileURLToPath(new URL("../../../packages/cli/bin/flow.js", import.meta.url));
const SECRET = /AKIA[0-9A-Z]{16}/;

/** A workspace of `FILES` TypeScript files of 60 lines, one of which holds a planted access key. */
function generateWorkspace(): string {
  const root = mkdtempSync(join(tmpdir(), "meshflow-bench-ws-"));
  for (let i = 0; i < FILES; i++) {
    const dir = join(root, "src", `module${i % 20}`);
    mkdirSync(dir, { recursive: true });
    const lines = Array.from({ length: 60 }, (_, n) => `export const value${n} = ${i * 100 + n}; // file ${i}`);
    if (i === 321) lines[30] = 'const key = "AKIAABCDEFGHIJKLMNOP";';
    writeFileSync(join(dir, `file${i}.ts`), `${lines.join("\n")}\n`);
  }
  return root;
}

interface Structured {
  structuredContent?: Record<string, unknown>;
}

type Call = (name: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;

function callVia(client: Client): Call {
  return async (name, args) =>
    ((await client.callTool({ name, arguments: args })) as Structured).structuredContent ?? {};
}

/** The two ways to find the planted key; both must agree, or the comparison means nothing. */
async function scans(call: Call): Promise<{ search: () => Promise<string[]>; reads: () => Promise<string[]> }> {
  const search = async (): Promise<string[]> => {
    const r = await call("search_text", { regex: SECRET.source });
    return (r.matches as { path: string; line: number }[]).map((m) => `${m.path}:${m.line}`);
  };
  const reads = async (): Promise<string[]> => {
    const listed = await call("list_files", { maxResults: FILES });
    const found: string[] = [];
    for (const file of listed.files as { path: string }[]) {
      const r = await call("read_file", { path: file.path });
      (r.content as string).split("\n").forEach((line, i) => {
        if (SECRET.test(line)) found.push(`${file.path}:${i + 1}`);
      });
    }
    return found;
  };
  const [a, b] = [await search(), await reads()];
  if (a.join() !== b.join() || a.length !== 1) throw new Error(`scans disagree: ${a.join()} vs ${b.join()}`);
  return { search, reads };
}

/**
 * Scanning a workspace for a secret: one `search_text` call, against what a client with only read tools does
 * (`list_files`, then `read_file` per file and the regex on its side), through the MCP SDK client over an
 * in-memory transport and over stdio to `flow workspace-server`. Also `run_command` of a trivial process
 * against starting it directly.
 */
export async function workspaceSuite(): Promise<Row[]> {
  const root = generateWorkspace();
  const server = createWorkspaceServer({ root, allow: [process.execPath] });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(clientSide);
  const stdioClient = new Client({ name: "bench-stdio", version: "1.0.0" });
  await stdioClient.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [FLOW, "workspace-server", "--root", root],
      stderr: "ignore",
    }),
  );
  const call = callVia(client);

  try {
    const memory = await scans(call);
    const stdio = await scans(callVia(stdioClient));
    const search = await timeAsync(memory.search, 15);
    const reads = await timeAsync(memory.reads, 5, 1);
    const stdioSearch = await timeAsync(stdio.search, 15);
    const stdioReads = await timeAsync(stdio.reads, 5, 1);
    const run = await timeAsync(() => call("run_command", { command: process.execPath, args: ["-e", ""] }), 15);
    const direct = await timeAsync(() => promisify(execFile)(process.execPath, ["-e", ""]), 15);

    return [
      {
        suite: "workspace",
        case: `search_text, ${FILES} files (in memory)`,
        value: search.p50,
        unit: "ms p50",
        baseline: { label: "list_files + read_file each", value: reads.p50 },
      },
      { suite: "workspace", case: `list_files + ${FILES} read_file (in memory)`, value: reads.p50, unit: "ms p50" },
      {
        suite: "workspace",
        case: `search_text, ${FILES} files (stdio)`,
        value: stdioSearch.p50,
        unit: "ms p50",
        baseline: { label: "list_files + read_file each", value: stdioReads.p50 },
      },
      { suite: "workspace", case: `list_files + ${FILES} read_file (stdio)`, value: stdioReads.p50, unit: "ms p50" },
      {
        suite: "workspace",
        case: "run_command node -e '' (in memory)",
        value: run.p50,
        unit: "ms p50",
        baseline: { label: "execFile node -e ''", value: direct.p50 },
      },
    ];
  } finally {
    await client.close();
    await stdioClient.close();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}
