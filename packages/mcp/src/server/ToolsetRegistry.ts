import { didYouMean, type ErrorCode, MeshflowError } from "@meshflow/core";
import MiniSearch from "minisearch";
import type { ServedTool } from "./ServedTool.js";
import { ALL_TOOLSETS } from "./ToolsetConfig.js";

/** Cursor's limit on the tools it passes to its model: the built-in default selection stays within it. */
const DEFAULT_MAX_TOOLS = 40;

/** The toolset of meshflow's own tools. */
export const CORE_TOOLSET = "core";
/** The toolset of the meta-tools that list, describe and enable toolsets. */
export const DISCOVERY_TOOLSET = "discovery";

/** A named group of tools that loads as a whole. */
export interface Toolset {
  name: string;
  description: string;
  /** `own`: meshflow's tools; `server`: the tools of the downstream MCP server of the same name. */
  kind: "own" | "server";
  /** Loaded in every session whatever is selected (`core`, `discovery`). */
  alwaysLoaded: boolean;
  tools: ServedTool[];
  /** Set when the server's tools could not be discovered; such a toolset has no tools. */
  unavailable?: { code: ErrorCode; message: string };
}

/** Which toolsets a session starts with, and why. */
export interface ToolsetSelection {
  /** Every loaded toolset, the always-loaded ones first. */
  toolsets: string[];
  toolCount: number;
  source: "flag" | "client-override" | "config-default" | "built-in";
  /** E.g. a selection above the tool limit. */
  warnings: string[];
}

/** One hit of {@link ToolsetRegistry.search}. */
export interface ToolSearchHit {
  tool: ServedTool;
  score: number;
}

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);
}

/**
 * Every toolset the server knows, whether a session loaded it or not: the own ones and one per
 * downstream server. Served names are unique across toolsets; listeners hear when a toolset's
 * tools change (rediscovery), so sessions can follow.
 */
export class ToolsetRegistry {
  private readonly toolsets = new Map<string, Toolset>();
  private readonly byName = new Map<string, ServedTool>();
  #search: MiniSearch<ServedTool> | undefined;
  private readonly byChainName = new Map<string, ServedTool>();
  private readonly listeners = new Set<(toolset: string) => void>();
  /** The most tools the built-in default selection loads. */
  readonly maxDefaultTools: number;

  constructor(options: { maxDefaultTools?: number } = {}) {
    this.maxDefaultTools = options.maxDefaultTools ?? DEFAULT_MAX_TOOLS;
  }

  /** Adds a toolset or replaces the one of the same name; tells the listeners. */
  set(toolset: Toolset): void {
    for (const tool of toolset.tools) {
      const other = this.byName.get(tool.name);
      if (other && other.toolset !== toolset.name)
        throw new MeshflowError(
          "internal",
          `tool name "${tool.name}" of toolset "${toolset.name}" is already served by toolset "${other.toolset}"`,
        );
    }
    const previous = this.toolsets.get(toolset.name);
    for (const tool of previous?.tools ?? []) {
      this.byName.delete(tool.name);
      this.byChainName.delete(tool.descriptor.qualifiedName);
    }
    this.toolsets.set(toolset.name, toolset);
    for (const tool of toolset.tools) {
      this.byName.set(tool.name, tool);
      this.byChainName.set(tool.descriptor.qualifiedName, tool);
    }
    this.#search = undefined;
    for (const listener of this.listeners) listener(toolset.name);
  }

  /** Calls `listener` with a toolset's name whenever it is added or replaced. Returns the unsubscribe function. */
  onChange(listener: (toolset: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A toolset by name. */
  get(name: string): Toolset | undefined {
    return this.toolsets.get(name);
  }

  /** Every toolset: `core` first, the other always-loaded ones, then the rest in the order they were added. */
  all(): Toolset[] {
    const list = [...this.toolsets.values()];
    const always = list
      .filter((t) => t.alwaysLoaded)
      .sort((a, b) => Number(b.name === CORE_TOOLSET) - Number(a.name === CORE_TOOLSET));
    return [...always, ...list.filter((t) => !t.alwaysLoaded)];
  }

  /** Every toolset name. */
  names(): string[] {
    return this.all().map((t) => t.name);
  }

  /** A tool by the name clients call it. */
  tool(servedName: string): ServedTool | undefined {
    return this.byName.get(servedName);
  }

  /** A tool by its name in the call chain (the qualified name of a proxied tool). */
  toolByChainName(chainName: string): ServedTool | undefined {
    return this.byChainName.get(chainName);
  }

  /** Every served tool name, for suggestions. */
  toolNames(): string[] {
    return [...this.byName.keys()];
  }

  /** How many tools the named toolsets have together. */
  toolCount(names: Iterable<string>): number {
    let count = 0;
    for (const name of new Set(names)) count += this.toolsets.get(name)?.tools.length ?? 0;
    return count;
  }

  /** Throws `toolset_unknown` (with suggestions) for a name that is neither a toolset nor `all`. */
  assertKnown(names: readonly string[], where: string): void {
    const known = this.names();
    for (const name of names)
      if (name !== ALL_TOOLSETS && !this.toolsets.has(name))
        throw new MeshflowError(
          "toolset_unknown",
          `${where}: unknown toolset "${name}"${didYouMean(name, known)}; known: ${known.join(", ")}, ${ALL_TOOLSETS}`,
          { details: { toolset: name, candidates: known } },
        );
  }

  /**
   * The built-in default: the always-loaded toolsets, then each other toolset in order while the
   * total stays within {@link maxDefaultTools}; a toolset that does not fit is left for later.
   */
  defaultToolsets(): string[] {
    const chosen = this.all().filter((t) => t.alwaysLoaded);
    let count = this.toolCount(chosen.map((t) => t.name));
    for (const toolset of this.all()) {
      if (toolset.alwaysLoaded || toolset.unavailable) continue;
      if (count + toolset.tools.length > this.maxDefaultTools) continue;
      chosen.push(toolset);
      count += toolset.tools.length;
    }
    return chosen.map((t) => t.name);
  }

  /** `names` with `all` expanded and the always-loaded toolsets added, in registry order. */
  expand(names: readonly string[]): string[] {
    const wanted = new Set(names.includes(ALL_TOOLSETS) ? this.names() : names);
    return this.all()
      .filter((t) => t.alwaysLoaded || wanted.has(t.name))
      .map((t) => t.name);
  }

  /**
   * The toolsets a session starts with: `--toolsets` if given, else the config's override for the
   * client, else the config's `defaultToolsets`, else {@link defaultToolsets}. Names are checked.
   */
  select(options: {
    flag?: readonly string[] | undefined;
    clientOverride?: readonly string[] | undefined;
    configDefault?: readonly string[] | undefined;
  }): ToolsetSelection {
    let source: ToolsetSelection["source"];
    let toolsets: string[];
    if (options.flag?.length) {
      this.assertKnown(options.flag, "--toolsets");
      [source, toolsets] = ["flag", this.expand(options.flag)];
    } else if (options.clientOverride) {
      this.assertKnown(options.clientOverride, "toolset config clientOverrides");
      [source, toolsets] = ["client-override", this.expand(options.clientOverride)];
    } else if (options.configDefault) {
      this.assertKnown(options.configDefault, "toolset config defaultToolsets");
      [source, toolsets] = ["config-default", this.expand(options.configDefault)];
    } else [source, toolsets] = ["built-in", this.defaultToolsets()];
    const warnings: string[] = [];
    // A toolset whose server is down is not loaded; enable_toolset retries it later.
    for (const name of toolsets) {
      const down = this.toolsets.get(name)?.unavailable;
      if (down && source !== "built-in") warnings.push(`toolset ${name} is unavailable: ${down.message}`);
    }
    toolsets = toolsets.filter((name) => !this.toolsets.get(name)?.unavailable);
    const toolCount = this.toolCount(toolsets);
    if (toolCount > this.maxDefaultTools)
      warnings.push(
        `${toolCount} tools loaded (${toolsets.join(", ")}): more than ${this.maxDefaultTools}, which some clients (Cursor) do not pass on`,
      );
    return { toolsets, toolCount, source, warnings };
  }

  /**
   * Tools whose name, toolset, title or description match the words of `query`, best first (full-text
   * relevance, MiniSearch as the resolver's "did you mean" uses it): the name counts three times, the
   * toolset twice, the description once.
   */
  search(query: string, limit = 10): ToolSearchHit[] {
    if (!words(query).length) return [];
    this.#search ??= this.#index();
    return this.#search
      .search(query, { combineWith: "OR" })
      .flatMap((hit) => {
        const tool = this.byName.get(String(hit.id));
        return tool ? [{ tool, score: hit.score }] : [];
      })
      .sort((a, b) => b.score - a.score || a.tool.name.localeCompare(b.tool.name))
      .slice(0, limit);
  }

  /** The full-text index of the served tools (rebuilt after a toolset changes). */
  #index(): MiniSearch {
    const search = new MiniSearch<ServedTool>({
      idField: "name",
      fields: ["title", "toolset", "description"],
      tokenize: words,
      searchOptions: { boost: { title: 3, toolset: 2, description: 1 }, tokenize: words },
      extractField: (tool, field) =>
        field === "name"
          ? tool.name
          : field === "title"
            ? `${tool.descriptor.name} ${tool.descriptor.title ?? ""}`
            : field === "toolset"
              ? tool.toolset
              : tool.descriptions.rich,
    });
    search.addAll([...this.byName.values()]);
    return search;
  }
}
