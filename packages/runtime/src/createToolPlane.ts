import type { McpConfig, ToolDescriptor, ToolResult } from "@meshflow/core";
import { MeshflowError, parseQualifiedName, qualifyToolName } from "@meshflow/core";
import { InlineExecutor } from "@meshflow/queue";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RepertoireRules, RepertoireRulesOptions } from "./internal/RepertoireRules.js";
import type { DiscoveryFailure, ToolPlane } from "./ToolPlane.js";

/** Options of {@link createToolPlane}. */
export interface ToolPlaneOptions extends RepertoireRulesOptions {
  mcpConfig: McpConfig;
}

/** Builds the tool side of runs from an MCP config. (Interim: direct SDK clients, exact names.) */
export async function createToolPlane(options: ToolPlaneOptions): Promise<ToolPlane> {
  // The resolver side loads with the first server: a PRD whose steps name no MCP server needs none of it.
  let rules: RepertoireRules | undefined;
  const loadRules = async (): Promise<RepertoireRules> => {
    if (!rules) {
      const { RepertoireRules } = await import("./internal/RepertoireRules.js");
      rules = new RepertoireRules(options);
    }
    return rules;
  };
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
      if (!servers.length) return { tools: [], failures };
      const loaded = await loadRules();
      const found = servers.flatMap((s) => tools.get(s) ?? []);
      await loaded.classify([...tools.values()].flat());
      return { tools: found, failures };
    },
    repertoire: (stepTools, specialist) => (rules && stepTools.length ? rules.repertoire(stepTools, specialist) : []),
    resolve: (name, list, specialist) => {
      if (!rules) throw new MeshflowError("tool_not_found", `no tool "${name}": the step has no MCP servers`);
      return rules.resolve(name, list, specialist);
    },
    executor,
    async close() {
      for (const c of clients.values()) await (await c.catch(() => undefined))?.close();
    },
  };
}
