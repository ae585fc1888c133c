// Tool discovery for the `flow tools` commands, over the MCP SDK client. One function with the shape of
// the MCP layer's `ClientPool.discover()`, so the commands can switch to the shared pool by replacing it.
import type { ErrorCode, McpServerConfig, ToolDescriptor } from "@meshflow/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

/** A server whose tools could not be listed. */
export interface ServerFailure {
  server: string;
  code: ErrorCode;
  message: string;
}

/** Tools of every server that answered, and why the others did not. */
export interface Discovery {
  tools: ToolDescriptor[];
  failures: ServerFailure[];
}

/** Options of {@link discoverTools}. */
export interface DiscoverOptions {
  /** Per server, for connecting and listing together (default 20 s). */
  timeoutMs?: number;
}

const STDERR_TAIL = 600;

function transportFor(config: McpServerConfig, stderr: { text: string }): Transport {
  if (config.transport === "http")
    return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args,
    env: { ...getDefaultEnvironment(), ...config.env },
    cwd: config.cwd,
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr.text = (stderr.text + chunk.toString("utf8")).slice(-STDERR_TAIL);
  });
  return transport;
}

async function listServer(config: McpServerConfig, timeoutMs: number): Promise<ToolDescriptor[]> {
  const stderr = { text: "" };
  const client = new Client({ name: "meshflow-cli", version: "0.1.0" });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { timeout: true })),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([
      (async () => {
        await client.connect(transportFor(config, stderr));
        const tools: ToolDescriptor[] = [];
        let cursor: string | undefined;
        do {
          const page = await client.listTools(cursor ? { cursor } : {});
          for (const tool of page.tools)
            tools.push({
              qualifiedName: `${config.name}__${tool.name}`,
              server: config.name,
              name: tool.name,
              ...(tool.title ? { title: tool.title } : {}),
              description: tool.description ?? "",
              inputSchema: tool.inputSchema as Record<string, unknown>,
              annotations: { ...(tool.annotations ?? {}) },
            });
          cursor = page.nextCursor;
        } while (cursor);
        return tools;
      })(),
      timeout,
    ]);
  } catch (error) {
    const tail = stderr.text.trim().split("\n").slice(-3).join(" | ");
    const reason = error instanceof Error ? error.message : String(error);
    throw Object.assign(new Error(`${reason}${tail ? ` (server stderr: ${tail})` : ""}`), {
      timeout: (error as { timeout?: boolean }).timeout === true,
    });
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => undefined);
  }
}

/**
 * Lists the tools of `names` (default: every configured server) in parallel with paginated `tools/list`,
 * as `<server>__<tool>` descriptors in config order. A server that fails is reported, never skipped silently.
 */
export async function discoverTools(
  servers: ReadonlyMap<string, McpServerConfig>,
  names: readonly string[] = [...servers.keys()],
  options: DiscoverOptions = {},
): Promise<Discovery> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const results = await Promise.all(
    names.map(async (name): Promise<ToolDescriptor[] | ServerFailure> => {
      const config = servers.get(name);
      if (!config) return { server: name, code: "server_unknown", message: `MCP server "${name}" is not configured` };
      try {
        return await listServer(config, timeoutMs);
      } catch (error) {
        const timedOut = (error as { timeout?: boolean }).timeout === true;
        return {
          server: name,
          code: timedOut ? "connect_timeout" : "server_unreachable",
          message: `MCP server "${name}": ${error instanceof Error ? error.message : String(error)}`,
        };
      }
    }),
  );
  const tools: ToolDescriptor[] = [];
  const failures: ServerFailure[] = [];
  for (const result of results) {
    if (Array.isArray(result)) tools.push(...result);
    else failures.push(result);
  }
  return { tools, failures };
}
