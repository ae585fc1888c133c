import type { DetectedClient } from "./clientMode.js";
import type { ToolsetRegistry } from "./ToolsetRegistry.js";

/** What the instructions of one session are written from. */
export interface InstructionsInput {
  client: DetectedClient;
  registry: ToolsetRegistry;
  /** The toolsets the session starts with. */
  loaded: readonly string[];
  /** A short line about the server itself, first in every mode. */
  preamble?: string;
  /** A closing line (the server's safety tools, for example), last in every mode. */
  epilogue?: string;
}

function list(registry: ToolsetRegistry, names: readonly string[]): string {
  return names.map((n) => `${n} (${registry.get(n)?.tools.length ?? 0})`).join(", ");
}

/**
 * The `instructions` of the `initialize` answer, written for the client's mode: search-based
 * clients are told to search and go step by step; dynamic clients which toolsets they can enable;
 * static clients what they have and how to get more (a restart). Clients that do not read
 * annotations learn how destructive tools are confirmed.
 */
export function serverInstructions(input: InstructionsInput): string {
  const { client, registry, loaded } = input;
  const loadedSet = new Set(loaded);
  const others = registry.names().filter((n) => !loadedSet.has(n));
  const count = registry.toolCount(loaded);
  const lines: string[] = [];
  if (input.preamble) lines.push(input.preamble);
  if (client.mode === "anthropic") {
    lines.push(
      `Use tool search (or search_tools) to find tools by what they do; ${count} tools are loaded from ${list(registry, loaded)}.`,
      "Prefer sequential calls: finish one tool call and read its result before the next.",
    );
    if (others.length) lines.push(`More toolsets can be loaded with enable_toolset: ${list(registry, others)}.`);
  } else if (client.mode === "dynamic") {
    lines.push(`Loaded toolsets: ${list(registry, loaded)} (${count} tools).`);
    if (others.length)
      lines.push(
        `Available toolsets: ${list(registry, others)}. Use list_available_toolsets, describe_toolset or search_tools to look, and enable_toolset to load one on demand; the tool list then changes (notifications/tools/list_changed).`,
      );
  } else {
    lines.push(`You have ${count} tools from the toolsets ${list(registry, loaded)}.`);
    if (others.length)
      lines.push(
        `Other toolsets (${list(registry, others)}) need a server restart with a different --toolsets flag or toolset-config.json; search_tools shows what they contain.`,
      );
  }
  if (!client.annotationAware)
    lines.push(
      "Destructive tools need confirmation: a call without confirmation_token is refused with a token; after the user agrees, call again with the same arguments and that confirmation_token (or get one first with get_confirmation_token). Tokens are single use and last 60 s.",
    );
  if (input.epilogue) lines.push(input.epilogue);
  return lines.join("\n");
}
