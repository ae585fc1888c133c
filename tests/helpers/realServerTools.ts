import { mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ToolDescriptor } from "@meshflow/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const require = createRequire(import.meta.url);

/** The JS entry of an npm MCP server package (run with `process.execPath`, never npx). */
function serverEntry(pkg: "server-filesystem" | "server-memory" | "server-everything"): string {
  return join(dirname(require.resolve(`@modelcontextprotocol/${pkg}/package.json`)), "dist/index.js");
}

/** Spawn arguments for the real filesystem, memory and everything servers, in fresh temp folders. */
export function realServers(): Record<
  "filesystem" | "memory" | "everything",
  { args: string[]; env: Record<string, string> }
> {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-real-tools-"));
  return {
    filesystem: { args: [serverEntry("server-filesystem"), dir], env: {} },
    memory: { args: [serverEntry("server-memory")], env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") } },
    everything: { args: [serverEntry("server-everything")], env: {} },
  };
}

/**
 * Discovers the tools of a real MCP server over stdio with the SDK client (paginated `tools/list`) and
 * returns them as meshflow descriptors named `<server>__<tool>`.
 */
async function discoverRealTools(
  server: string,
  spawn: { args: string[]; env: Record<string, string> },
): Promise<ToolDescriptor[]> {
  const client = new Client({ name: "meshflow-tests", version: "0.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: spawn.args,
      env: { ...(process.env as Record<string, string>), ...spawn.env },
      stderr: "ignore",
    }),
  );
  try {
    const tools: ToolDescriptor[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      for (const tool of page.tools)
        tools.push({
          qualifiedName: `${server}__${tool.name}`,
          server,
          name: tool.name,
          ...(tool.title ? { title: tool.title } : {}),
          description: tool.description ?? "",
          inputSchema: tool.inputSchema as Record<string, unknown>,
          annotations: { ...(tool.annotations ?? {}) },
        });
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  } finally {
    await client.close();
  }
}

/** The real tools of server-filesystem, server-memory and server-everything, discovered in parallel. */
export async function discoverAllRealTools(): Promise<
  Record<"filesystem" | "memory" | "everything", ToolDescriptor[]>
> {
  const servers = realServers();
  const [filesystem, memory, everything] = await Promise.all([
    discoverRealTools("filesystem", servers.filesystem),
    discoverRealTools("memory", servers.memory),
    discoverRealTools("everything", servers.everything),
  ]);
  return { filesystem, memory, everything };
}
