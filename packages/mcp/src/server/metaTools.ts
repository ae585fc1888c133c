import { didYouMean } from "@meshflow/core";
import { z } from "zod";
import type { ConfirmationGate } from "../ConfirmationGate.js";
import { refusal } from "../refusal.js";
import type { EventSink } from "../types.js";
import { defineLocalTool, jsonResult, type ServedTool, type SessionView } from "./ServedTool.js";
import { CORE_TOOLSET, DISCOVERY_TOOLSET, type Toolset, type ToolsetRegistry } from "./ToolsetRegistry.js";
import { hintsSentence } from "./toolDescriptions.js";

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

function toolsetSummary(toolset: Toolset, session: SessionView) {
  return {
    name: toolset.name,
    description: toolset.description,
    kind: toolset.kind,
    toolCount: toolset.tools.length,
    loaded: session.isLoaded(toolset.name),
    alwaysLoaded: toolset.alwaysLoaded,
    ...(toolset.unavailable ? { unavailable: toolset.unavailable } : {}),
  };
}

function unknownToolset(registry: ToolsetRegistry, name: string) {
  const known = registry.names();
  return refusal(
    "toolset_unknown",
    `unknown toolset "${name}"${didYouMean(name, known)}; known: ${known.join(", ")} (list_available_toolsets lists them)`,
    { candidates: known },
  );
}

/**
 * The `discovery` toolset: `list_available_toolsets`, `describe_toolset`, `enable_toolset` and
 * `search_tools`. They answer for the session they are called in (what it has loaded, its mode).
 */
export function discoveryTools(registry: ToolsetRegistry): ServedTool[] {
  return [
    defineLocalTool({
      name: "list_available_toolsets",
      toolset: DISCOVERY_TOOLSET,
      title: "List toolsets",
      rich: "Lists every toolset this server offers (meshflow's own tools and one per downstream MCP server) with its tool count, whether this session has it loaded, and why a server's toolset is unavailable. Use it first to see what can be enabled; use describe_toolset for the tools of one toolset.",
      minimal: "List toolsets with tool counts and whether each is loaded.",
      input: {},
      annotations: READ_ONLY,
      run: async (_args, _ctx, session) => {
        const toolsets = registry.all().map((t) => toolsetSummary(t, session));
        return jsonResult({ mode: session.mode, loadedToolCount: session.toolCount(), toolsets });
      },
    }),
    defineLocalTool({
      name: "describe_toolset",
      toolset: DISCOVERY_TOOLSET,
      title: "Describe a toolset",
      rich: "Shows the tools of one toolset before you load it: each tool's name, short description and what its hints say (read-only, destructive). Use it to decide whether enable_toolset is worth the extra tools in context; it does not load anything.",
      minimal: "Show one toolset's tools and their hints without loading it.",
      input: { name: z.string().describe("toolset name, as list_available_toolsets gives it") },
      annotations: READ_ONLY,
      run: async ({ name }, _ctx, session) => {
        const toolset = registry.get(name);
        if (!toolset) return unknownToolset(registry, name);
        return jsonResult({
          ...toolsetSummary(toolset, session),
          tools: toolset.tools.map((t) => ({
            name: t.name,
            description: t.descriptions.minimal,
            hints: hintsSentence(t.descriptor.annotations),
            annotations: t.descriptor.annotations,
          })),
        });
      },
    }),
    defineLocalTool({
      name: "enable_toolset",
      toolset: DISCOVERY_TOOLSET,
      title: "Enable a toolset",
      rich: "Loads a toolset's tools into this session and sends notifications/tools/list_changed, so the client lists them next. Use it when list_available_toolsets or search_tools shows the tools you need are in a toolset that is not loaded. Clients that keep a fixed tool list (static mode) get instructions to restart with --toolsets instead.",
      minimal: "Load a toolset's tools into this session (sends list_changed).",
      input: { name: z.string().describe("toolset name, as list_available_toolsets gives it") },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async ({ name }, _ctx, session) => {
        if (!registry.get(name)) return unknownToolset(registry, name);
        const outcome = await session.enableToolset(name);
        const result = jsonResult({ ...outcome }, outcome.message);
        if (outcome.status === "unavailable") result.isError = true;
        return result;
      },
    }),
    defineLocalTool({
      name: "search_tools",
      toolset: DISCOVERY_TOOLSET,
      title: "Search tools",
      rich: "Finds tools by words in their names, toolsets and descriptions across every toolset, loaded or not, best match first, with the toolset to enable for each. Use it when you know what you want done but not which tool or server does it; prefer list_available_toolsets to browse.",
      minimal: "Find tools in any toolset by keywords.",
      input: {
        query: z.string().min(1).describe("keywords, e.g. 'write file'"),
        limit: z.number().int().min(1).max(50).default(10).describe("most hits to return"),
      },
      annotations: READ_ONLY,
      run: async ({ query, limit }, _ctx, session) => {
        const hits = registry.search(query, limit).map(({ tool, score }) => ({
          name: tool.name,
          toolset: tool.toolset,
          loaded: session.isLoaded(tool.toolset),
          description: tool.descriptions.minimal,
          score,
        }));
        return jsonResult({ query, hits });
      },
    }),
  ];
}

/**
 * `get_confirmation_token`: a token for one call of a destructive tool with exactly these
 * arguments (single use, 60 s), for clients that do not ask their user about `destructiveHint`.
 */
export function confirmationTokenTool(
  registry: ToolsetRegistry,
  gate: ConfirmationGate,
  options: { toolset?: string; onEvent?: EventSink } = {},
): ServedTool {
  return defineLocalTool({
    name: "get_confirmation_token",
    toolset: options.toolset ?? CORE_TOOLSET,
    title: "Get a confirmation token",
    rich: "Issues a single-use token, valid for 60 seconds, that allows one call of a destructive tool with exactly the given arguments: pass it as confirmation_token in that call. Use it only after the user agreed to the destructive action; a destructive call without a token is refused with a token in the refusal.",
    minimal: "Get a 60 s single-use token for one destructive tool call.",
    input: {
      tool: z.string().min(1).describe("the destructive tool's name, as tools/list gives it"),
      arguments: z.record(z.string(), z.unknown()).default({}).describe("the exact arguments of the call"),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: async ({ tool, arguments: args }, ctx, session) => {
      const served = registry.tool(tool);
      if (!served) {
        const known = registry.toolNames();
        return refusal("tool_not_found", `no tool "${tool}"${didYouMean(tool, known)}`, {
          candidates: known.filter((n) => registry.tool(n)?.toolset !== DISCOVERY_TOOLSET).slice(0, 5),
        });
      }
      if (!gate.requiresConfirmation(served.descriptor))
        return refusal(
          "invalid_arguments",
          `"${tool}" is not destructive: call it directly, it needs no confirmation token`,
        );
      const issued = gate.issue(served.descriptor.qualifiedName, args);
      const expiresAt = new Date(issued.expiresAt).toISOString();
      options.onEvent?.({
        type: "confirmation.issued",
        time: new Date().toISOString(),
        ...(ctx.runId ? { runId: ctx.runId } : {}),
        tool: served.descriptor.qualifiedName,
        expiresAt,
      });
      const notes: string[] = [];
      if (!session.isLoaded(served.toolset)) notes.push(`toolset "${served.toolset}" is not loaded in this session`);
      if (session.client.annotationAware) notes.push("this client is annotation-aware: the tool runs without a token");
      return jsonResult(
        {
          confirmation_token: issued.token,
          tool,
          expiresAt,
          argsSha256: issued.argsSha256,
          singleUse: true,
          ...(notes.length ? { notes } : {}),
        },
        `confirmation_token ${issued.token} for "${tool}" with these exact arguments; single use, valid until ${expiresAt}. Call ${tool} with the same arguments plus "confirmation_token": "${issued.token}".${notes.length ? ` Note: ${notes.join("; ")}.` : ""}`,
      );
    },
  });
}
