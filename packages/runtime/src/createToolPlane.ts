import type { McpConfig, ToolDescriptor, ToolResult } from "@meshflow/core";
import { MeshflowError, parseQualifiedName, qualifyToolName } from "@meshflow/core";
import { InlineExecutor } from "@meshflow/queue";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { DiscoveryFailure, ToolPlane } from "./ToolPlane.js";

/** Options of {@link createToolPlane}. */
export interface ToolPlaneOptions {
  mcpConfig: McpConfig;
  /** Skills folder (`skills/<name>/SKILL.md`), when skills filter repertoires. */
  skillsDir?: string;
}

/** Builds the tool side of runs from an MCP config. (Interim: direct SDK clients, exact names.) */
export async function createToolPlane(options: ToolPlaneOptions): Promise<ToolPlane> {
  const clients = new Map<string, Promise<Client>>();
  const tools = new Map<string, ToolDescriptor[]>();
  const connect = (server: string): Promise<Client> => {
    let client = clients.get(server);
    if (!client) {
      const config = options.mcpConfig.servers.get(server);
      if (!config || !("command" in config)) throw new MeshflowError("server_unknown", `no stdio server "${server}"`);
      client = (async () => {
        const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
        const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
        const c = new Client({ name: "meshflow", version: "0.1.0" });
        const transport = new StdioClientTransport({
          command: config.command,
          args: config.args,
          env: { ...(process.env as Record<string, string>), ...config.env },
          cwd: config.cwd,
          stderr: "ignore",
        });
        await c.connect(transport);
        return c;
      })();
      clients.set(server, client);
    }
    return client;
  };
  const executor = new InlineExecutor(async (name, args) => {
    const parsed = parseQualifiedName(name);
    if (!parsed) return { isError: true, code: "tool_not_found", content: [{ type: "text", text: name }] };
    const client = await connect(parsed.server);
    return (await client.callTool({ name: parsed.tool, arguments: args })) as ToolResult;
  });
  return {
    servers: () => [...options.mcpConfig.servers.keys()],
    async discover(servers) {
      const failures: DiscoveryFailure[] = [];
      for (const server of servers) {
        if (tools.has(server)) continue;
        try {
          const client = await connect(server);
          const listed = await client.listTools();
          tools.set(
            server,
            listed.tools.map((t) => ({
              qualifiedName: qualifyToolName(server, t.name),
              server,
              name: t.name,
              description: t.description ?? "",
              inputSchema: t.inputSchema as Record<string, unknown>,
              annotations: t.annotations ?? {},
            })),
          );
        } catch (error) {
          failures.push({ server, code: "server_unreachable", message: (error as Error).message });
        }
      }
      return { tools: servers.flatMap((s) => tools.get(s) ?? []), failures };
    },
    repertoire: (stepTools) => [...stepTools],
    resolve(name, list) {
      const hit = list.find((t) => t.qualifiedName === name) ?? list.find((t) => t.name === name);
      if (!hit) throw new MeshflowError("tool_not_found", `no tool "${name}"`);
      return { qualifiedName: hit.qualifiedName, tier: "exact", warnings: [] };
    },
    executor,
    async close() {
      for (const c of clients.values()) await (await c.catch(() => undefined))?.close();
    },
  };
}
