import type { ToolResult } from "@meshflow/core";
import type { McpServer, RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { jsonSchemaInput } from "../internal/jsonSchemaInput.js";
import type { CallContext, ToolHandler } from "../types.js";
import type { ClientMode, DetectedClient } from "./clientMode.js";
import { createServerChain, type ServerChainOptions } from "./createServerChain.js";
import type { EnableOutcome, ServedTool, SessionView } from "./ServedTool.js";
import type { ToolsetRegistry } from "./ToolsetRegistry.js";

/** The argument that carries a confirmation token on clients that do not read annotations. */
const CONFIRMATION_TOKEN_ARG = "confirmation_token";

/** Options of {@link ToolsetSession}. */
export interface ToolsetSessionOptions {
  /** The session's server, not yet connected. */
  server: McpServer;
  registry: ToolsetRegistry;
  client: DetectedClient;
  /** The toolsets the session starts with (always-loaded ones included). */
  toolsets: readonly string[];
  /** The server-wide parts of the call chain (shared by every session). */
  chain: Omit<ServerChainOptions, "local">;
  /** Rediscovers a server's toolset (an unavailable one may have come up since). */
  refresh?: (toolset: string) => Promise<void>;
  /** Hears each toolset this session enables. */
  onEnable?: (outcome: EnableOutcome, client: DetectedClient) => void;
}

/** `_meta` key naming a served tool's toolset. */
const TOOLSET_META_KEY = "meshflow/toolset";
/** `_meta` key carrying a refusal's stable code on a tool result. */
export const CODE_META_KEY = "meshflow/code";

/** A tool result as MCP sends it: the refusal code moves into `_meta`. */
function toCallToolResult(result: ToolResult): CallToolResult {
  const out: CallToolResult = { content: result.content as CallToolResult["content"] };
  if (result.structuredContent !== undefined) out.structuredContent = result.structuredContent;
  if (result.isError === true) out.isError = true;
  if (result.code !== undefined) out._meta = { [CODE_META_KEY]: result.code };
  return out;
}

function withTokenArgument(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = (typeof schema.properties === "object" && schema.properties) || {};
  return {
    ...schema,
    properties: {
      ...properties,
      [CONFIRMATION_TOKEN_ARG]: {
        type: "string",
        description:
          "single-use token from get_confirmation_token (or from the refusal of a call without one) for exactly these arguments; valid 60 s",
      },
    },
  };
}

/**
 * One client connection: registers every toolset's tools on the session's `McpServer` (enabled
 * when loaded, disabled otherwise), with descriptions of the client's tier and, for clients that
 * do not read annotations, a `confirmation_token` argument on destructive tools. Every call goes
 * through the server chain; `enable_toolset` enables a toolset's tools, which sends one
 * `notifications/tools/list_changed`.
 */
export class ToolsetSession implements SessionView {
  readonly client: DetectedClient;
  private readonly server: McpServer;
  private readonly registry: ToolsetRegistry;
  private readonly loaded: Set<string>;
  private readonly registered = new Map<string, { tool: ServedTool; handle: RegisteredTool }>();
  private readonly call: ToolHandler;
  private readonly options: ToolsetSessionOptions;
  private readonly unsubscribe: () => void;

  constructor(options: ToolsetSessionOptions) {
    this.options = options;
    this.server = options.server;
    this.registry = options.registry;
    this.client = options.client;
    this.loaded = new Set(options.toolsets);
    const registry = this.registry;
    this.call = createServerChain({
      ...options.chain,
      local: (chainName) => {
        const handler = registry.toolByChainName(chainName)?.handler;
        return handler ? (args, ctx) => handler(args, ctx, this) : undefined;
      },
    });
    for (const toolset of registry.all()) this.registerToolset(toolset.name);
    this.unsubscribe = registry.onChange((name) => this.resync(name));
  }

  get mode(): ClientMode {
    return this.client.mode;
  }

  isLoaded(toolset: string): boolean {
    return this.loaded.has(toolset);
  }

  loadedToolsets(): string[] {
    return this.registry.names().filter((n) => this.loaded.has(n));
  }

  toolCount(): number {
    let count = 0;
    for (const { handle } of this.registered.values()) if (handle.enabled) count++;
    return count;
  }

  /** The names the session lists now, in registration order. */
  listedTools(): string[] {
    return [...this.registered].filter(([, r]) => r.handle.enabled).map(([name]) => name);
  }

  /** Enables a toolset (dynamic and anthropic clients) or explains how to get it (static clients). */
  async enableToolset(name: string): Promise<EnableOutcome> {
    const outcome = await this.enable(name);
    this.options.onEnable?.(outcome, this.client);
    return outcome;
  }

  private async enable(name: string): Promise<EnableOutcome> {
    let toolset = this.registry.get(name);
    const base = { toolset: name, added: [] as string[] };
    if (toolset && this.loaded.has(name))
      return {
        ...base,
        status: "already_loaded",
        toolCount: this.toolCount(),
        message: `toolset "${name}" is already loaded (${toolset.tools.length} tools)`,
      };
    if (this.client.mode === "static") {
      const wanted = [...this.loadedToolsets().filter((n) => !this.registry.get(n)?.alwaysLoaded), name];
      return {
        ...base,
        status: "static_client",
        toolCount: this.toolCount(),
        message: `This client keeps the tools it started with (static mode), so toolset "${name}" (${toolset?.tools.length ?? 0} tools) cannot be added now. Restart the server with --toolsets ${wanted.join(",")}, or add "${name}" to clientOverrides["${this.client.name}"] in toolset-config.json; if the client does follow tools/list_changed, set FLOW_CLIENT_MODE=dynamic.`,
      };
    }
    if (toolset?.unavailable && this.options.refresh) {
      await this.options.refresh(name);
      toolset = this.registry.get(name);
    }
    if (!toolset || toolset.unavailable)
      return {
        ...base,
        status: "unavailable",
        toolCount: this.toolCount(),
        message: `toolset "${name}" is unavailable: ${toolset?.unavailable?.message ?? "unknown toolset"}`,
      };
    this.loaded.add(name);
    const added: string[] = [];
    for (const [served, { tool, handle }] of this.registered)
      if (tool.toolset === name && !handle.enabled) {
        handle.enable();
        added.push(served);
      }
    return {
      ...base,
      added,
      status: "enabled",
      toolCount: this.toolCount(),
      message: `toolset "${name}" enabled: ${added.length} tools added (${added.join(", ")}); notifications/tools/list_changed sent`,
    };
  }

  private registerToolset(name: string): void {
    const toolset = this.registry.get(name);
    if (!toolset) return;
    const enabled = this.loaded.has(name);
    for (const tool of toolset.tools) {
      const handle = this.register(tool);
      if (!enabled) handle.disable();
      this.registered.set(tool.name, { tool, handle });
    }
  }

  /** A toolset was rediscovered: its tools are registered again as they are now. */
  private resync(name: string): void {
    for (const [served, { tool, handle }] of [...this.registered])
      if (tool.toolset === name) {
        handle.remove();
        this.registered.delete(served);
      }
    this.registerToolset(name);
  }

  private needsToken(tool: ServedTool): boolean {
    return !this.client.annotationAware && this.options.chain.confirmation.requiresConfirmation(tool.descriptor);
  }

  private register(tool: ServedTool): RegisteredTool {
    const tier = this.client.mode === "anthropic" ? "rich" : "minimal";
    const token = this.needsToken(tool);
    let description = tool.descriptions[tier];
    if (token)
      description +=
        tier === "rich"
          ? `\n\nDestructive: needs ${CONFIRMATION_TOKEN_ARG} (from get_confirmation_token, or from the refusal of a call without one).`
          : ` Needs ${CONFIRMATION_TOKEN_ARG}.`;
    const schema = token ? withTokenArgument(tool.descriptor.inputSchema) : tool.descriptor.inputSchema;
    const { title, ...annotations } = tool.descriptor.annotations;
    const displayTitle = tool.descriptor.title ?? title;
    return this.server.registerTool(
      tool.name,
      {
        ...(displayTitle !== undefined ? { title: displayTitle } : {}),
        description,
        inputSchema: jsonSchemaInput(schema),
        annotations: { ...(title !== undefined ? { title } : {}), ...annotations },
        _meta: { [TOOLSET_META_KEY]: tool.toolset },
      },
      (args, extra) => {
        const ctx: CallContext = { annotationAware: this.client.annotationAware, signal: extra.signal };
        let callArgs = args;
        if (token && CONFIRMATION_TOKEN_ARG in args) {
          const { [CONFIRMATION_TOKEN_ARG]: presented, ...rest } = args;
          callArgs = rest;
          ctx.confirmationToken = typeof presented === "string" ? presented : JSON.stringify(presented);
        }
        return this.call(tool.descriptor.qualifiedName, callArgs, ctx).then(toCallToolResult);
      },
    );
  }

  /** Stops following the registry (the server itself is closed by its owner). */
  close(): void {
    this.unsubscribe();
  }
}
